"""What a rolled simple contest does once resolved (who wins, the RP it lodges or takes off, whom it removes or
brings back), and whether a story point could still change that.

Pure arithmetic over the state: it folds nothing, so the state's own fold may ask it who may spend a story
point."""

from __future__ import annotations

from dataclasses import dataclass
from typing import assert_never

from msgspec.structs import replace

from protocol.rulesets import scored as s
from server.rules.scored.points import DEFEAT_AT, FOLLOWER_ROUND_LIMIT, SECONDARY_LIMIT, compare, resolution_points
from server.rules.scored.points import round_points as round_rp
from server.rules.scored.state import Member, Pending, ScoredState


@dataclass(frozen=True)
class Effect:
    """The resolution of a rolled contest before its consequences are settled: ``points`` lodged against
    ``against`` (negative: taken off it), and the removals and returns it brings (``extra``)."""

    winner: s.Party | None
    loser: s.Party | None
    degree: int
    successes: list[int]
    against: str | None
    points: int
    extra: list[s.Event]

    @property
    def changes(self) -> object:
        """What the contest changes at the table: the RP moved and against whom, and who is removed or back
        (not who won by how many successes, when that moves nothing)."""
        return (self.against if self.points else None, self.points, tuple(self.extra))


def limit(member: Member) -> int:
    """The RP that take a contestant out: 3 for a secondary contestant, else 5."""
    return SECONDARY_LIMIT if member.role == "secondary" else DEFEAT_AT


def name(party: s.Party) -> str:
    return party.contestant if party.contestant is not None else "the resistance"


def effect(state: ScoredState, pending: Pending) -> Effect:
    """What ``pending`` does with the story points spent on it so far."""
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
                won = state.tactics.get(name(winner), s.Tactic()).tactic
                lost = state.tactics.get(name(loser), s.Tactic()).tactic
                against, points = loser.contestant, round_rp(result.degree, won, lost)
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
    return Effect(winner, loser, result.degree, totals, against, points, extra)


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


def story_point_matters(state: ScoredState, pending: Pending, contestant: str) -> bool:
    """Whether spending some of the story points ``contestant`` holds (each one more success for it, the other
    party as it stands) would change what the contest does. Past a few more successes than the gap between
    the two totals nothing new can happen (the RP only grow, or are capped), so no more are tried."""
    held = state.members[contestant].story_points
    now = effect(state, pending)
    tries = min(held, abs(now.successes[0] - now.successes[1]) + 6)
    for more in range(1, tries + 1):
        spent = {**pending.spent, contestant: pending.spent.get(contestant, 0) + more}
        if effect(state, replace(pending, spent=spent)).changes != now.changes:
            return True
    return False
