"""One exchange of an extended contest: who pays how much AP, and whether it goes to the winner.

Seed 000 table 5.3.1.1 (its fourth row read as Fumble) with RULES.md §1: the better result wins; the loser
pays ``multiplier * bid``, the multiplier being ½ at 0 steps between the results (the worse roll pays, equal
dice tie) and the number of steps otherwise; halves round up. When the winner rolled Critical the payment
goes to the winner, unless the loser's ability value is 6 or more below the winner's. Fumble against Fumble
is a tie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import assert_never

from server.rules.questworlds.levels import BetterRoll, Level, compare_results

HALF = Fraction(1, 2)

NO_TRANSFER_GAP = 6
"""A loser whose value is this much or more below the winner's loses the AP without transferring it."""


class Party(StrEnum):
    """The two parties to an exchange: the side that acts and bids, and the side that responds."""

    ACTOR = "actor"
    DEFENDER = "defender"


@dataclass(frozen=True)
class ExchangeParty:
    """One party's final result and what the table needs to know about it.

    ``die`` is None for an ability of value 0 or less, which rolls no die (its level is then Failure, or
    whatever bumps made of it). ``edge`` is the party's edge (^N), negative for a handicap; only the actor's
    counts, and only when the defender pays.
    """

    level: Level
    die: int | None
    value: int
    edge: int = 0


@dataclass(frozen=True)
class ExchangeResult:
    """What an exchange does to the two AP totals.

    ``steps`` is the distance between the two levels; ``multiplier`` is the table's (½ at 0 steps, else the
    steps). ``stake`` is the bid the multiplier applied to: the bid plus the actor's edge when the defender
    pays (never below 0), the plain bid otherwise. ``loser_loses`` is the AP the loser gives up (halves
    rounded up); ``winner_gains`` is the same amount when it is transferred, else 0. A tie has no winner and
    moves no AP. In an asymmetrical exchange the actor can win but the defender pays nothing.
    """

    winner: Party | None
    steps: int
    multiplier: Fraction
    stake: int
    loser_loses: int
    winner_gains: int
    transferred: bool

    @property
    def loser(self) -> Party | None:
        match self.winner:
            case None:
                return None
            case Party.ACTOR:
                return Party.DEFENDER
            case Party.DEFENDER:
                return Party.ACTOR
            case _:
                assert_never(self.winner)


def multiplier_for(steps: int) -> Fraction:
    """½ at 0 steps, else the number of steps (1, 2 or 3)."""
    if not 0 <= steps <= Level.CRITICAL - Level.FUMBLE:
        raise ValueError(f"two results are 0 to 3 steps apart, got {steps}")
    return HALF if steps == 0 else Fraction(steps)


def payment(stake: int, multiplier: Fraction) -> int:
    """``multiplier * stake`` with halves rounded up (bid 3 at ½ pays 2)."""
    return math.ceil(multiplier * stake)


def resolve_exchange(
    actor: ExchangeParty,
    defender: ExchangeParty,
    bid: int,
    *,
    better_roll: BetterRoll = "low",
    asymmetrical: bool = False,
) -> ExchangeResult:
    """Resolve one exchange of the actor's ``bid`` from both parties' final (bumped) results."""
    if bid < 1:
        raise ValueError(f"a bid is at least 1, got {bid}")
    steps = abs(actor.level - defender.level)
    multiplier = multiplier_for(steps)
    match compare_results(actor.level, actor.die, defender.level, defender.die, better_roll):
        case 0:
            return ExchangeResult(None, steps, multiplier, bid, 0, 0, False)
        case 1:
            winner, winning, losing = Party.ACTOR, actor, defender
        case -1:
            winner, winning, losing = Party.DEFENDER, defender, actor
        case other:
            assert_never(other)
    if winner is Party.ACTOR:
        stake = max(bid + actor.edge, 0)
        if asymmetrical:
            return ExchangeResult(winner, steps, multiplier, stake, 0, 0, False)
    else:
        stake = bid
    loses = payment(stake, multiplier)
    transferred = winning.level is Level.CRITICAL and losing.value > winning.value - NO_TRANSFER_GAP
    return ExchangeResult(winner, steps, multiplier, stake, loses, loses if transferred else 0, transferred)
