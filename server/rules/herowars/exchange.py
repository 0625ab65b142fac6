"""One exchange of the Hero Wars variant (seed 001): who wins, and what each side loses or gains.

1. The better result level wins; Success against Success, the lower roll wins; equal rolls, and Critical
   against Critical, are a tie the GM settles from the stated intents.
2. The bid is modified first: the actor's edge (negative for a handicap) is added when the defender pays,
   never below 0.
3. Winner table: Critical doubles the bid and the loss is transferred; Success doubles it; Failure keeps it.
4. Loser table: Success halves the result (rounding up); Failure takes it whole; Fumble doubles it.
5. Special cases: both Failure, both lose the full bid (both with masteries: as if both rolled Success);
   both Fumble, both lose double the bid; Failure against Fumble, the winner loses the full bid and the
   loser double.
6. Optional rule ``cap_3x``: no loss or transfer is greater than three times the modified bid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, assert_never

from server.rules.questworlds.levels import Level

Side = Literal["actor", "defender"]
Case = Literal["win", "transfer", "both_failure", "both_fumble", "failure_vs_fumble", "tie"]

WINNER_TABLE: dict[Level, int] = {Level.CRITICAL: 2, Level.SUCCESS: 2, Level.FAILURE: 1}
"""The winner's level: what the bid is multiplied by (a Critical winner's loss is also transferred)."""

LOSER_TABLE: dict[Level, Fraction] = {
    Level.SUCCESS: Fraction(1, 2),
    Level.FAILURE: Fraction(1),
    Level.FUMBLE: Fraction(2),
}
"""The loser's level: what the winner's modified bid is multiplied by to give the loss."""

CAP = 3
"""The optional rule: no loss or transfer exceeds this many times the modified bid."""


@dataclass(frozen=True)
class Roll:
    """One side's result: its level after masteries (and hero points) and its die (None: no die)."""

    level: Level
    face: int | None


@dataclass(frozen=True)
class Resolution:
    case: Case
    winner: Side | None
    actor_loss: int
    defender_loss: int
    gained: int  # what the winner gains (a Critical winner's transfer)
    capped: bool = False


TIE = Resolution("tie", None, 0, 0, 0)


def winner_of(actor: Roll, defender: Roll) -> Side | None:
    """The better level; Success against Success the lower roll (a side that rolled no die, raised to
    Success by a hero point, has the worse roll); None for a tie (equal rolls at Success, Critical against
    Critical). Failure and Fumble pairs are special cases, not ties."""
    if actor.level != defender.level:
        return "actor" if actor.level > defender.level else "defender"
    if actor.level is not Level.SUCCESS or actor.face == defender.face:
        return None
    if actor.face is None or defender.face is None:  # a hero point raised a side that rolled no die
        return "defender" if actor.face is None else "actor"  # no die is the worse roll (RULES §1)
    return "actor" if actor.face < defender.face else "defender"


def modified_bid(bid: int, edge: int, paid_by: Side) -> int:
    """The bid with the actor's edge (or handicap) added when the defender pays, never below 0."""
    match paid_by:
        case "defender":
            return max(bid + edge, 0)
        case "actor":
            return bid
        case _:
            assert_never(paid_by)


def resolve(
    actor: Roll, defender: Roll, bid: int, edge: int = 0, both_masteries: bool = False, cap_3x: bool = False
) -> Resolution:
    """The exchange's result; ``edge`` is the actor's (negative for a handicap)."""
    if bid < 0:
        raise ValueError(f"a bid is never negative, got {bid}")
    actor_pays, defender_pays = modified_bid(bid, edge, "actor"), modified_bid(bid, edge, "defender")
    levels = (actor.level, defender.level)
    if levels == (Level.FAILURE, Level.FAILURE):
        if not both_masteries:
            return Resolution("both_failure", None, actor_pays, defender_pays, 0)
        actor, defender = Roll(Level.SUCCESS, actor.face), Roll(Level.SUCCESS, defender.face)
    elif levels == (Level.FUMBLE, Level.FUMBLE):
        return Resolution("both_fumble", None, 2 * actor_pays, 2 * defender_pays, 0)
    elif set(levels) == {Level.FAILURE, Level.FUMBLE}:
        winner: Side = "actor" if actor.level is Level.FAILURE else "defender"
        if winner == "actor":
            return Resolution("failure_vs_fumble", winner, actor_pays, 2 * defender_pays, 0)
        return Resolution("failure_vs_fumble", winner, 2 * actor_pays, defender_pays, 0)
    found = winner_of(actor, defender)
    if found is None:
        return TIE
    won, lost = (actor, defender) if found == "actor" else (defender, actor)
    base = modified_bid(bid, edge, "defender" if found == "actor" else "actor")
    loss = math.ceil(base * WINNER_TABLE[won.level] * LOSER_TABLE[lost.level])
    capped = cap_3x and loss > CAP * base
    if capped:
        loss = CAP * base
    transfer = won.level is Level.CRITICAL
    gained = loss if transfer else 0
    case: Case = "transfer" if transfer else "win"
    if found == "actor":
        return Resolution(case, found, 0, loss, gained, capped)
    return Resolution(case, found, loss, 0, gained, capped)
