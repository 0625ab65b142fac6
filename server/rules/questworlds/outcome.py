"""How a contest ends: table 5.3.3.1 by the loser's final AP, and simple contests decided by steps."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import assert_never

from server.rules.questworlds.levels import BetterRoll, Level, compare_results


class Degree(IntEnum):
    """The degree of a victory or defeat, ordered Marginal < Minor < Major < Complete."""

    MARGINAL = 0
    MINOR = 1
    MAJOR = 2
    COMPLETE = 3

    @property
    def label(self) -> str:
        """The name as written in the tables: ``Marginal``, ``Minor``, ``Major``, ``Complete``."""
        return self.name.capitalize()

    def __str__(self) -> str:
        return self.label


class Consequence(StrEnum):
    """What the loser of an extended contest suffers."""

    HURT = "Hurt"
    IMPAIRED = "Impaired"
    INJURED = "Injured"
    DYING = "Dying"


class Benefit(StrEnum):
    """What the winner of an extended contest gains."""

    FRESH = "Fresh"
    PUMPED = "Pumped"
    INVIGORATED = "Invigorated"
    HEROIC = "Heroic"


class Result(StrEnum):
    """A simple contest seen from one side."""

    VICTORY = "Victory"
    DEFEAT = "Defeat"
    TIE = "Tie"


@dataclass(frozen=True)
class Outcome:
    """An extended contest's outcome: its degree, the loser's consequence and the winner's benefit."""

    degree: Degree
    consequence: Consequence
    benefit: Benefit


@dataclass(frozen=True)
class SimpleContestResult:
    """A simple contest's result for one side: victory or defeat by a degree, or a tie (no degree)."""

    result: Result
    degree: Degree | None

    def __str__(self) -> str:
        if self.degree is None:
            return self.result.value
        return f"{self.degree.label} {self.result.value}"


def degree_for(final_ap: int) -> Degree:
    """The degree of defeat for a loser's final AP: 0..-10 Marginal, -11..-20 Minor, -21..-30 Major, -31 or less
    Complete. ValueError above 0, where nobody has lost yet."""
    if final_ap > 0:
        raise ValueError(f"a contest is lost at 0 AP or less, got {final_ap}")
    if final_ap >= -10:
        return Degree.MARGINAL
    if final_ap >= -20:
        return Degree.MINOR
    if final_ap >= -30:
        return Degree.MAJOR
    return Degree.COMPLETE


def outcome_for(final_ap: int) -> Outcome:
    """Table 5.3.3.1: the outcome of an extended contest by the loser's final AP (0 or less)."""
    degree = degree_for(final_ap)
    match degree:
        case Degree.MARGINAL:
            return Outcome(degree, Consequence.HURT, Benefit.FRESH)
        case Degree.MINOR:
            return Outcome(degree, Consequence.IMPAIRED, Benefit.PUMPED)
        case Degree.MAJOR:
            return Outcome(degree, Consequence.INJURED, Benefit.INVIGORATED)
        case Degree.COMPLETE:
            return Outcome(degree, Consequence.DYING, Benefit.HEROIC)
        case _:
            assert_never(degree)


def simple_contest_result(
    level_a: Level, die_a: int | None, level_b: Level, die_b: int | None, better_roll: BetterRoll = "low"
) -> SimpleContestResult:
    """Side a's result in a simple contest: victory or defeat by the steps between the two results.

    0 steps is a Marginal victory for the better roll (a tie on equal dice), 1 Minor, 2 Major, 3 Complete;
    Fumble against Fumble is a tie.
    """
    degree = Degree(abs(level_a - level_b))
    match compare_results(level_a, die_a, level_b, die_b, better_roll):
        case 0:
            return SimpleContestResult(Result.TIE, None)
        case 1:
            return SimpleContestResult(Result.VICTORY, degree)
        case -1:
            return SimpleContestResult(Result.DEFEAT, degree)
        case other:
            assert_never(other)
