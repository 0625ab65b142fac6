"""Resolving a rolled simple contest: a round, an assist, an engagement of a follower, a parting shot."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import scored as s
from server.rules.scored.points import FOLLOWER_ROUND_LIMIT, compare, resolution_points, round_points
from server.rules.scored.settle import after, limit, settle
from server.rules.scored.state import Pending, ScoredState


def resolve_if_ready(state: ScoredState, events: list[s.Event]) -> list[s.Event]:
    """The events, and the contest resolved after them when nobody may still spend a story point."""
    now = after(state, events)
    if now.pending is not None and not now.pending.waiting:
        return [*events, *resolve(now)]
    return events


def _name(party: s.Party) -> str:
    return party.contestant if party.contestant is not None else "the resistance"


def resolve(state: ScoredState) -> list[s.Event]:
    pending = state.pending
    assert pending is not None
    first, second = pending.first, pending.second
    totals = [p.successes + pending.spent.get(p.contestant or "", 0) for p in (first, second)]
    result = compare((totals[0], first.face), (totals[1], second.face))
    winner = None if result.winner is None else (first, second)[result.winner]
    loser = None if result.winner is None else (second, first)[result.winner]
    against: str | None = None
    points = 0
    extra: list[s.Event] = []
    match pending.kind:
        case "round":
            if winner is not None and loser is not None:
                won = state.tactics.get(_name(winner), s.Tactic()).tactic
                lost = state.tactics.get(_name(loser), s.Tactic()).tactic
                against, points = loser.contestant, round_points(result.degree, won, lost)
        case "assist":
            against = pending.target
            if winner is first and against is not None:
                points = -min(resolution_points(result.degree), state.rp(against))
            elif winner is second:
                points = resolution_points(result.degree)
        case "engage":
            if winner is first and second.contestant is not None:
                extra.append(s.TakenOut(contestant=second.contestant, reason="engaged", last_round=0))
        case "parting_shot":
            target = second.contestant
            assert target is not None
            against = target
            if winner is first:
                points = resolution_points(result.degree)
            elif winner is second:
                took_out = state.taken_out.get(target, 0)
                points = -min(resolution_points(result.degree), took_out, state.rp(target))
                extra.extend(_comeback(state, target, took_out + points, points))
        case _:
            assert_never(pending.kind)
    resolved = s.ContestResolved(
        kind=pending.kind,
        round=state.round,
        winner=None if winner is None else _name(winner),
        loser=None if loser is None else _name(loser),
        degree=result.degree,
        successes=totals,
        against=against,
        points=points,
        result=_text(pending, winner, loser, against, points),
    )
    lodged: dict[str, int] = {}
    if against is not None and pending.kind != "parting_shot":
        lodged = {state.members[against].tally: points}
    changes: list[s.Event] = [resolved, *extra]
    return [*changes, *settle(state, changes, lodged, in_round=pending.kind == "round")]


def _comeback(state: ScoredState, target: str, revised_round: int, points: int) -> list[s.Event]:
    """A follower taken out by 3 RP in one round returns when the comeback takes that round below 3 (and
    its tally stays below the limit); one out by its tally returns through ``settle``."""
    member = state.members[target]
    if member.out != "round":
        return []
    tally = state.rp(target) + points
    if revised_round < FOLLOWER_ROUND_LIMIT and tally < limit(member):
        return [s.Returned(contestant=target)]
    return []


def _text(pending: Pending, winner: s.Party | None, loser: s.Party | None, against: str | None, points: int) -> str:
    if winner is None or loser is None:
        return "standoff: nothing changes"
    beaten = f"{_name(winner)} beats {_name(loser)}"
    match pending.kind:
        case "engage":
            return f"{beaten}: {pending.second.contestant} is removed" if winner is pending.first else beaten
        case _:
            if against is None or points == 0:
                return f"{beaten}: no resolution points"
            verb = "lodges" if points > 0 else "takes off"
            return f"{beaten}: {_name(winner)} {verb} {abs(points)} RP against {against}"
