"""What each viewer sees of a scored sequence. Tallies are public (§5.2.1.2); the sealed tactics are the
engine's to hide until both are in; story points are shown to their controller and the GM."""

from __future__ import annotations

from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.engine.view_members import Own, ViewMembers
from server.rules.questworlds.hero_points import awaiting_for, pending_for
from server.rules.questworlds.ratings import Rating
from server.rules.scored.points import assist_resistance
from server.rules.scored.settle import outcomes
from server.rules.scored.state import Member, ScoredState


def view(state: ScoredState, viewer: Viewer) -> s.ScoredView:
    return MEMBERS.view(state, viewer)


def score(state: ScoredState) -> dict[str, str]:
    """Each main contestant's score against its opponent, RP scored first: "leading 4–0", "behind 1–3",
    "tied 2–2" (§5.2.1.4)."""
    mains = [m for m in state.members.values() if m.main and m.present]
    if len({m.side for m in mains}) < 2:
        return {}
    result: dict[str, str] = {}
    for entry in outcomes(state, winner=""):
        mine, theirs = entry.rp_for, entry.rp_against
        word = "leading" if mine > theirs else "behind" if mine < theirs else "tied"
        result[entry.contestant] = f"{word} {mine}–{theirs}"
    return result


def _tactics(state: ScoredState) -> dict[str, s.Tactic]:
    return dict(state.tactics) if state.phase != "declaring" else {}


def _next_assist(state: ScoredState) -> dict[str, str]:
    base = Rating.parse(state.assist_resistance)
    tallies = {m.tally for m in state.members.values() if m.active}
    return {tally: str(assist_resistance(base, state.assists.get(tally, 0))) for tally in sorted(tallies)}


def _chart(state: ScoredState) -> list[s.ChartPoint]:
    return [s.ChartPoint(round=p.round, kind=p.kind, tallies=dict(p.tallies)) for p in state.chart[-s.CHART_POINTS :]]


def _contestants(state: ScoredState) -> Own:
    """The contestants: each one's RP and whom it is engaged with are every sight's; its story points and
    whether the viewer controls it are the viewer's own."""
    rows = [
        (member, state.tallies[member.tally], state.engaged_with(member.id) if member.active else [])
        for member in state.members.values()
    ]
    return lambda viewer: [_member(member, rp, engaged, viewer) for member, rp, engaged in rows]


def _pending(state: ScoredState) -> Own:
    """The contest waiting for story points: who is still awaited is public with the ``always`` window and as
    secret as the story points with ``when_it_matters``; who may still spend one is the GM's and its player's."""
    pending, window = state.pending, state.story_point_window
    if pending is None:
        return lambda viewer: None
    spent = dict(pending.spent)
    return lambda viewer: s.PendingView(
        kind=pending.kind,
        first=pending.first,
        second=pending.second,
        target=pending.target,
        spent=spent,
        waiting_for=awaiting_for(window, pending.waiting, viewer),
        may_spend=pending_for(pending.may_spend, viewer),
    )


MEMBERS: ViewMembers[ScoredState, s.ScoredView] = ViewMembers(
    state_type=ScoredState,
    view_type=s.ScoredView,
    shared={
        "prize": lambda state: state.prize,
        "round": lambda state: state.round,
        "phase": lambda state: state.phase,
        "initiative": lambda state: state.initiative,
        "responder": lambda state: state.responder,
        "tactics": _tactics,
        "score": score,
        "next_assist": _next_assist,
        "chart": _chart,
        "last": lambda state: state.last,
        "outcome": lambda state: state.outcome,
        "players_type_faces": lambda state: state.players_type_faces,
        "parting_shot_targets": lambda state: sorted(state.taken_out),
        "last_roll": lambda state: state.last_roll,
    },
    own={
        "contestants": _contestants,
        "pending": _pending,
    },
    reads={
        "prize": ("prize",),
        "round": ("round",),
        "phase": ("phase",),
        "initiative": ("initiative",),
        "responder": ("responder",),
        "tactics": ("tactics", "phase"),
        "score": ("members", "tallies", "fallen", "last_opponent"),
        "next_assist": ("assist_resistance", "members", "assists"),
        "chart": ("chart",),
        "last": ("last",),
        "outcome": ("outcome",),
        "players_type_faces": ("players_type_faces",),
        "parting_shot_targets": ("taken_out",),
        "last_roll": ("last_roll",),
        "contestants": ("members", "tallies", "met"),
        "pending": ("pending", "story_point_window"),
    },
)
"""The view, member by member: the score, the chart and what an assist faces, which every sight shares, are
worked out once per state, and only the members that read what an event changed are built again. The score
reads the members, the tallies, the fallen and each one's last opponent (``outcomes``: who it is measured
against); a contestant's row reads the tallies and whom it has met (``ScoredState.engaged_with``)."""


def _member(member: Member, rp: int, engaged: list[str], viewer: Viewer) -> s.ContestantView:
    own = viewer.omniscient or viewer.controls(member.id)
    return s.ContestantView(
        id=member.id,
        name=member.name,
        side=member.side,
        ability=member.ability,
        rating=member.rating,
        role=member.role,
        follower_of=member.follower_of,
        tally=member.tally,
        rp=rp,
        story_points=member.story_points if own else None,
        present=member.present,
        out=member.out,
        controlled_by_you=viewer.controls(member.id) or (viewer.role == "gm" and not member.player),
        engaged_with=engaged,
    )
