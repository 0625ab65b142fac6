"""``evolve`` for the scored sequence: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.events import Revealed
from protocol.rulesets import scored as s
from server.rules.questworlds.hero_points import awaiting
from server.rules.scored.effect import story_point_matters
from server.rules.scored.state import Fall, Pending, Point, ScoredState

replace = msgspec.structs.replace


def evolve(state: ScoredState, event: s.Event | Revealed) -> ScoredState:
    return BY_EVENT[type(event)](state, event)


def _round_started(state: ScoredState, event: s.RoundStarted) -> ScoredState:
    opponents = {event.initiative: event.responder, event.responder: event.initiative}
    return replace(
        state,
        round=event.round,
        phase="declaring",
        initiative=event.initiative,
        responder=event.responder,
        tactics={},
        last_opponent={**state.last_opponent, **opponents},
        met={**state.met, **{c: _add(state.met.get(c, []), o) for c, o in opponents.items()}},
        taken_out={},  # the chance of a parting shot closes when the next round starts
        shots=[],
    )


def _revealed(state: ScoredState, event: Revealed) -> ScoredState:
    tactics: dict[str, s.Tactic] = {c: s.Tactic() for c in (state.initiative, state.responder) if c}
    tactics.update({e.participant: e.payload for e in event.entries if isinstance(e.payload, s.Tactic)})
    return replace(state, phase="ready", tactics=tactics)


def _contest_rolled(state: ScoredState, event: s.ContestRolled) -> ScoredState:
    return _rolled(state, event)


def _story_point_spent(state: ScoredState, event: s.StoryPointSpent) -> ScoredState:
    return _spent(state, event.contestant)


def _story_points_kept(state: ScoredState, event: s.StoryPointsKept) -> ScoredState:
    pending = state.pending
    if pending is None:
        return state
    return replace(state, pending=_answers(state, replace(pending, kept=[*pending.kept, event.contestant])))


def _contest_resolved(state: ScoredState, event: s.ContestResolved) -> ScoredState:
    tallies = _lodged(state, event.against, event.points)
    chart = [*state.chart, Point(round=event.round, kind=event.kind, tallies=dict(tallies))]
    round_over = event.kind == "round"
    return replace(
        state,
        tallies=tallies,
        taken_out=_won_back(state, event),
        pending=None,
        last=event,
        last_roll=_last_roll(state, event),
        chart=chart,
        phase="decided" if state.outcome is not None else "between",
        initiative=None if round_over else state.initiative,
        responder=None if round_over else state.responder,
    )


def _points_shifted(state: ScoredState, event: s.PointsShifted) -> ScoredState:
    tallies = _lodged(state, event.contestant, -event.points)
    return replace(state, tallies=_lodged(replace(state, tallies=tallies), event.follower, event.points))


def _joined(state: ScoredState, event: s.Joined) -> ScoredState:
    comrade = state.members[event.comrade]
    joined = replace(state.members[event.contestant], present=True, tally=comrade.tally)
    return replace(state, members={**state.members, event.contestant: joined})


def _points_adjusted(state: ScoredState, event: s.PointsAdjusted) -> ScoredState:
    return replace(state, tallies=_lodged(state, event.contestant, event.delta))


def _taken_out(state: ScoredState, event: s.TakenOut) -> ScoredState:
    out = replace(state.members[event.contestant], out=event.reason)
    taken = dict(state.taken_out)
    if event.reason != "engaged":
        taken[event.contestant] = event.last_round
    fallen = state.fallen
    if out.main:  # it has lost: the score against its opponent now is the score it lost by
        opponent = state.opponent(event.contestant)
        fallen = {**fallen, event.contestant: Fall(opponent=opponent, rp_for=state.rp(opponent))}
    return replace(
        state,
        members={**state.members, event.contestant: out},
        taken_out=taken,
        fallen=fallen,
        shots=[x for x in state.shots if not x.endswith(f">{event.contestant}")],
    )


def _returned(state: ScoredState, event: s.Returned) -> ScoredState:
    back = replace(state.members[event.contestant], out=None)
    taken = {c: n for c, n in state.taken_out.items() if c != event.contestant}
    fallen = {c: f for c, f in state.fallen.items() if c != event.contestant}
    return replace(state, members={**state.members, event.contestant: back}, taken_out=taken, fallen=fallen)


def _sequence_decided(state: ScoredState, event: s.SequenceDecided) -> ScoredState:
    return replace(state, phase="decided", outcome=event)


def _sequence_resumed(state: ScoredState, event: s.SequenceResumed) -> ScoredState:
    return replace(state, phase="between" if state.pending is None else state.phase, outcome=None)


# Each event's own class picks its fold: a failed class pattern costs a thousand instructions; events are final classes.
BY_EVENT: dict[type, Callable[[ScoredState, Any], ScoredState]] = {
    s.RoundStarted: _round_started,
    Revealed: _revealed,
    s.ContestRolled: _contest_rolled,
    s.StoryPointSpent: _story_point_spent,
    s.StoryPointsKept: _story_points_kept,
    s.ContestResolved: _contest_resolved,
    s.PointsShifted: _points_shifted,
    s.Joined: _joined,
    s.PointsAdjusted: _points_adjusted,
    s.TakenOut: _taken_out,
    s.Returned: _returned,
    s.SequenceDecided: _sequence_decided,
    s.SequenceResumed: _sequence_resumed,
}


def _add(names: list[str], name: str) -> list[str]:
    return names if name in names else [*names, name]


def _won_back(state: ScoredState, event: s.ContestResolved) -> dict[str, int]:
    """A failed parting shot's comeback uses up what the target may still win back of the RP lodged by the
    contest that took it out, so several failed shots together give back no more than that."""
    target = event.against
    if event.kind != "parting_shot" or event.points >= 0 or target is None or target not in state.taken_out:
        return state.taken_out
    return {**state.taken_out, target: max(state.taken_out[target] + event.points, 0)}


def _lodged(state: ScoredState, contestant: str | None, points: int) -> dict[str, int]:
    """The tallies after lodging ``points`` against a contestant's tally (never below 0)."""
    if contestant is None or contestant not in state.members or not points:
        return state.tallies
    tally = state.members[contestant].tally
    return {**state.tallies, tally: max(state.tallies[tally] + points, 0)}


def _rolled(state: ScoredState, event: s.ContestRolled) -> ScoredState:
    parties = [p.contestant for p in (event.first, event.second) if p.contestant is not None]
    assists = state.assists
    shots = state.shots
    if event.kind == "assist" and event.target is not None:
        tally = state.members[event.target].tally
        assists = {**assists, tally: assists.get(tally, 0) + 1}
    if event.kind == "parting_shot" and event.first.contestant and event.second.contestant:
        shots = [*shots, f"{event.first.contestant}>{event.second.contestant}"]
    pending = Pending(kind=event.kind, first=event.first, second=event.second, target=event.target, waiting=parties)
    return replace(state, phase="rolled", pending=_answers(state, pending), assists=assists, shots=shots)


def _last_roll(state: ScoredState, event: s.ContestResolved) -> s.RolledView | None:
    """The resolved contest's dice, and whose die won (a resistance's is the party with no contestant)."""
    pending = state.pending
    if pending is None:
        return state.last_roll
    parties = [pending.first.contestant, pending.second.contestant]
    winner = event.winner if event.winner in parties else None  # not a contestant: the resistance won
    won = None if event.winner is None else parties.index(winner) if winner in parties else None
    return s.RolledView(
        kind=pending.kind,
        round=event.round,
        first=pending.first,
        second=pending.second,
        target=pending.target,
        spent=dict(pending.spent),
        won=won,
    )


def _answers(state: ScoredState, pending: Pending) -> Pending:
    """Who may still spend a story point (one that holds some that could change what the contest does), and
    whose answer the contest waits for: with ``always`` every player's party that has not let the result
    stand (holding story points or not, so nobody learns who holds them), with ``when_it_matters`` only
    those who may still spend one."""
    pcs = [
        c
        for c in dict.fromkeys([p.contestant for p in (pending.first, pending.second) if p.contestant is not None])
        if state.members[c].player and state.members[c].out is None
    ]
    may_spend = [
        c
        for c in pcs
        if state.members[c].story_points > 0 and c not in pending.kept and story_point_matters(state, pending, c)
    ]
    waiting = awaiting(state.story_point_window, pcs, pending.kept, may_spend)
    return replace(pending, may_spend=may_spend, waiting=waiting)


def _spent(state: ScoredState, contestant: str) -> ScoredState:
    pending = state.pending
    if pending is None:
        return state
    member = state.members[contestant]
    left = member.story_points - 1
    spent = {**pending.spent, contestant: pending.spent.get(contestant, 0) + 1}
    after = replace(state, members={**state.members, contestant: replace(member, story_points=left)})
    return replace(after, pending=_answers(after, replace(pending, spent=spent)))
