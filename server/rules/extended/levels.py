"""One d20 roll's result level, mastery bumps, hero-point bumps and the comparison of two results."""

from __future__ import annotations

from enum import IntEnum
from typing import Literal, assert_never

DIE_SIDES = 20

BetterRoll = Literal["low", "high"]
"""Which die face wins between two results of the same level (``low``: the lower face, the default)."""

Comparison = Literal[-1, 0, 1]
"""1: the first result wins; -1: the second wins; 0: a tie."""


class Level(IntEnum):
    """The result of one roll, ordered Fumble < Failure < Success < Critical."""

    FUMBLE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL = 3

    @property
    def label(self) -> str:
        """The name as written in the tables: ``Fumble``, ``Failure``, ``Success``, ``Critical``."""
        return self.name.capitalize()

    @classmethod
    def from_label(cls, label: str) -> Level:
        """The level named ``label`` (any case); ValueError for an unknown name."""
        try:
            return cls[label.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown result level {label!r}: expected Fumble, Failure, Success or Critical") from None

    def __str__(self) -> str:
        return self.label


def roll_level(die: int | None, tn: int) -> Level:
    """The level a d20 face gives against a target number.

    1 is a Critical (even at TN 1), 20 a Fumble (even at TN 20), 2..TN a Success, above TN a Failure. A TN
    of 0 or less always gives Failure and takes no die (``die`` must then be None); otherwise a face is
    required.
    """
    if tn > DIE_SIDES:
        raise ValueError(f"a target number is at most {DIE_SIDES}, got {tn}; split the value into masteries")
    if tn <= 0:
        if die is not None:
            raise ValueError(f"a target number of {tn} rolls no die, got face {die}")
        return Level.FAILURE
    if die is None:
        raise ValueError(f"a target number of {tn} needs a d{DIE_SIDES} face")
    if not 1 <= die <= DIE_SIDES:
        raise ValueError(f"{die} is not a face of a d{DIE_SIDES}")
    if die == 1:
        return Level.CRITICAL
    if die == DIE_SIDES:
        return Level.FUMBLE
    if die <= tn:
        return Level.SUCCESS
    return Level.FAILURE


def bump_up(level: Level) -> Level:
    """One step up, never above Critical (a mastery, or a hero point)."""
    return Level(min(level + 1, Level.CRITICAL))


def bump_opponent_down(level: Level) -> Level:
    """One step down, never below Fumble (an opponent's leftover mastery)."""
    return Level(max(level - 1, Level.FUMBLE))


def apply_masteries(
    level_a: Level, masteries_a: int, level_b: Level, masteries_b: int, bump_down: bool = True
) -> tuple[Level, Level]:
    """Both results after the mastery bumps.

    Masteries cancel one for one; each net mastery bumps its holder up one step; once the holder is at
    Critical, each mastery left over bumps the opponent down one step (never below Fumble) when
    ``bump_down`` is True, and does nothing otherwise (the Hero Wars variant).
    """
    if masteries_a < 0 or masteries_b < 0:
        raise ValueError(f"masteries cannot be negative, got {masteries_a} and {masteries_b}")
    net = masteries_a - masteries_b
    if net == 0:
        return level_a, level_b
    holder, opponent = (level_a, level_b) if net > 0 else (level_b, level_a)
    # Constant time however many masteries: the holder climbs to Critical, what is left pushes the opponent.
    up = min(abs(net), Level.CRITICAL - holder)
    holder = Level(holder + up)
    if bump_down:
        opponent = Level(max(opponent - (abs(net) - up), Level.FUMBLE))
    return (holder, opponent) if net > 0 else (opponent, holder)


def compare_results(
    level_a: Level, die_a: int | None, level_b: Level, die_b: int | None, better_roll: BetterRoll = "low"
) -> Comparison:
    """1 when result a beats result b, -1 when b beats a, 0 for a tie.

    The better level wins. At the same level the better die face wins (``better_roll``) and equal faces
    tie; Fumble against Fumble is always a tie. A side that rolled no die (value 0 or less) has the worse
    roll against a side that rolled one at the same level; two sides without dice tie.
    """
    if level_a != level_b:
        return 1 if level_a > level_b else -1
    if level_a is Level.FUMBLE or die_a == die_b:
        return 0
    if die_a is None:
        return -1
    if die_b is None:
        return 1
    match better_roll:
        case "low":
            return 1 if die_a < die_b else -1
        case "high":
            return 1 if die_a > die_b else -1
        case _:
            assert_never(better_roll)
