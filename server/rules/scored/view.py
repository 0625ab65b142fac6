"""What each viewer sees of a scored sequence. Tallies are public (§5.2.1.2); the sealed tactics are the
engine's to hide until both are in; story points are shown to their controller and the GM."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.rules.questworlds.hero_points import awaiting_for, pending_for
from server.rules.questworlds.ratings import Rating
from server.rules.scored.points import assist_resistance
from server.rules.scored.settle import outcomes
from server.rules.scored.state import Member, ScoredState


def view(state: ScoredState, viewer: Viewer) -> s.ScoredView:
    return views(state, [viewer])[0]


def views(state: ScoredState, viewers: Sequence[Viewer]) -> list[s.ScoredView]:
    """Each viewer's view; the score, the chart and what an assist faces, which every sight shares, worked out
    once."""
    if not viewers:
        return []
    pending = state.pending
    shared = s.ScoredView(
        prize=state.prize,
        round=state.round,
        phase=state.phase,
        initiative=state.initiative,
        responder=state.responder,
        tactics=dict(state.tactics) if state.phase != "declaring" else {},
        contestants=[],
        score=score(state),
        pending=None,
        next_assist=_next_assist(state),
        chart=[
            s.ChartPoint(round=p.round, kind=p.kind, tallies=dict(p.tallies)) for p in state.chart[-s.CHART_POINTS :]
        ],
        last=state.last,
        outcome=state.outcome,
        players_type_faces=state.players_type_faces,
        parting_shot_targets=sorted(state.taken_out),
        last_roll=state.last_roll,
    )
    return [
        msgspec.structs.replace(
            shared,
            contestants=[_member(state, m, viewer) for m in state.members.values()],
            pending=None
            if pending is None
            else s.PendingView(
                kind=pending.kind,
                first=pending.first,
                second=pending.second,
                target=pending.target,
                spent=dict(pending.spent),
                waiting_for=awaiting_for(state.story_point_window, pending.waiting, viewer),
                may_spend=pending_for(pending.may_spend, viewer),
            ),
        )
        for viewer in viewers
    ]


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


def _next_assist(state: ScoredState) -> dict[str, str]:
    base = Rating.parse(state.assist_resistance)
    tallies = {m.tally for m in state.members.values() if m.active}
    return {tally: str(assist_resistance(base, state.assists.get(tally, 0))) for tally in sorted(tallies)}


def _member(state: ScoredState, member: Member, viewer: Viewer) -> s.ContestantView:
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
        rp=state.tallies[member.tally],
        story_points=member.story_points if own else None,
        present=member.present,
        out=member.out,
        controlled_by_you=viewer.controls(member.id) or (viewer.role == "gm" and not member.player),
        engaged_with=state.engaged_with(member.id) if member.active else [],
    )
