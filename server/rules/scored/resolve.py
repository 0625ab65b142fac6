"""Resolving a rolled simple contest: a round, an assist, an engagement of a follower, a parting shot."""

from __future__ import annotations

from protocol.rulesets import scored as s
from server.rules.scored.effect import effect, name
from server.rules.scored.settle import after, settle
from server.rules.scored.state import Pending, ScoredState


def resolve_if_ready(state: ScoredState, events: list[s.Event]) -> list[s.Event]:
    """The events, and the contest resolved after them when nobody may still spend a story point."""
    now = after(state, events)
    if now.pending is not None and not now.pending.waiting:
        return [*events, *resolve(now)]
    return events


def resolve(state: ScoredState) -> list[s.Event]:
    pending = state.pending
    assert pending is not None
    done = effect(state, pending)
    resolved = s.ContestResolved(
        kind=pending.kind,
        round=state.round,
        winner=None if done.winner is None else name(done.winner),
        loser=None if done.loser is None else name(done.loser),
        degree=done.degree,
        successes=done.successes,
        against=done.against,
        points=done.points,
        result=_text(pending, done.winner, done.loser, done.against, done.points),
    )
    lodged: dict[str, int] = {}
    if done.against is not None and pending.kind != "parting_shot":
        lodged = {state.members[done.against].tally: done.points}
    changes: list[s.Event] = [resolved, *done.extra]
    return [*changes, *settle(state, changes, lodged, in_round=pending.kind == "round")]


def _text(pending: Pending, winner: s.Party | None, loser: s.Party | None, against: str | None, points: int) -> str:
    if winner is None or loser is None:
        return "standoff: nothing changes"
    beaten = f"{name(winner)} beats {name(loser)}"
    match pending.kind:
        case "engage":
            return f"{beaten}: {pending.second.contestant} is removed" if winner is pending.first else beaten
        case _:
            if against is None or points == 0:
                return f"{beaten}: no resolution points"
            verb = "lodges" if points > 0 else "takes off"
            return f"{beaten}: {name(winner)} {verb} {abs(points)} RP against {against}"
