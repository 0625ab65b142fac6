"""Outcomes: seed 000 table 5.3.3.1, and simple contests inside the extended contest (RULES.md §1)."""

from __future__ import annotations

import pytest

from server.rules.questworlds.levels import BetterRoll, Level
from server.rules.questworlds.outcome import (
    Benefit,
    Consequence,
    Degree,
    Outcome,
    Result,
    SimpleContestResult,
    degree_for,
    outcome_for,
    simple_contest_result,
)

CRITICAL, SUCCESS, FAILURE, FUMBLE = Level.CRITICAL, Level.SUCCESS, Level.FAILURE, Level.FUMBLE

# final AP, level of defeat, consequence for loser, benefit for winner
TABLE_5_3_3_1 = [
    (0, "Marginal", "Hurt", "Fresh"),
    (-1, "Marginal", "Hurt", "Fresh"),
    (-10, "Marginal", "Hurt", "Fresh"),
    (-11, "Minor", "Impaired", "Pumped"),
    (-15, "Minor", "Impaired", "Pumped"),
    (-20, "Minor", "Impaired", "Pumped"),
    (-21, "Major", "Injured", "Invigorated"),
    (-30, "Major", "Injured", "Invigorated"),
    (-31, "Complete", "Dying", "Heroic"),
    (-45, "Complete", "Dying", "Heroic"),
    (-1000, "Complete", "Dying", "Heroic"),
]


@pytest.mark.parametrize(("final_ap", "degree", "consequence", "benefit"), TABLE_5_3_3_1)
def test_outcome_for(final_ap: int, degree: str, consequence: str, benefit: str) -> None:
    outcome = outcome_for(final_ap)
    assert outcome == Outcome(Degree[degree.upper()], Consequence(consequence), Benefit(benefit))
    assert outcome.degree.label == degree
    assert outcome.consequence == consequence
    assert outcome.benefit == benefit
    assert degree_for(final_ap) is outcome.degree


@pytest.mark.parametrize("final_ap", [1, 5, 40])
def test_no_outcome_above_0(final_ap: int) -> None:
    with pytest.raises(ValueError, match="0 AP or less"):
        outcome_for(final_ap)


def test_degrees_are_ordered() -> None:
    assert Degree.MARGINAL < Degree.MINOR < Degree.MAJOR < Degree.COMPLETE


# Simple contest, side a's view: by steps, 0 = Marginal (better roll) or Tie (equal dice), 1 Minor, 2 Major,
# 3 Complete; Fumble vs Fumble a Tie. Faces at TN 10 where the levels differ.
# level a, level b, result for a
DIFFERENT_LEVELS = [
    (CRITICAL, SUCCESS, "Minor Victory"),
    (CRITICAL, FAILURE, "Major Victory"),
    (CRITICAL, FUMBLE, "Complete Victory"),
    (SUCCESS, CRITICAL, "Minor Defeat"),
    (SUCCESS, FAILURE, "Minor Victory"),
    (SUCCESS, FUMBLE, "Major Victory"),
    (FAILURE, CRITICAL, "Major Defeat"),
    (FAILURE, SUCCESS, "Minor Defeat"),
    (FAILURE, FUMBLE, "Minor Victory"),
    (FUMBLE, CRITICAL, "Complete Defeat"),
    (FUMBLE, SUCCESS, "Major Defeat"),
    (FUMBLE, FAILURE, "Minor Defeat"),
]
FACE = {CRITICAL: 1, SUCCESS: 7, FAILURE: 14, FUMBLE: 20}


@pytest.mark.parametrize("better_roll", ["low", "high"])
@pytest.mark.parametrize(("a", "b", "expected"), DIFFERENT_LEVELS)
def test_simple_contest_different_levels(a: Level, b: Level, expected: str, better_roll: BetterRoll) -> None:
    assert str(simple_contest_result(a, FACE[a], b, FACE[b], better_roll)) == expected


# level, die a, die b, better roll, result for a
SAME_LEVEL: list[tuple[Level, int | None, int | None, BetterRoll, str]] = [
    (CRITICAL, 1, 4, "low", "Marginal Victory"),
    (CRITICAL, 1, 4, "high", "Marginal Defeat"),
    (CRITICAL, 1, 1, "low", "Tie"),
    (SUCCESS, 3, 8, "low", "Marginal Victory"),
    (SUCCESS, 3, 8, "high", "Marginal Defeat"),
    (SUCCESS, 8, 3, "low", "Marginal Defeat"),
    (SUCCESS, 8, 3, "high", "Marginal Victory"),
    (SUCCESS, 5, 5, "low", "Tie"),
    (SUCCESS, 5, 5, "high", "Tie"),
    (FAILURE, 12, 15, "low", "Marginal Victory"),
    (FAILURE, 12, 15, "high", "Marginal Defeat"),
    (FAILURE, 13, 13, "high", "Tie"),
    (FAILURE, None, 13, "low", "Marginal Defeat"),
    (FAILURE, None, None, "low", "Tie"),
    (FUMBLE, 20, 20, "low", "Tie"),
    (FUMBLE, 15, 20, "low", "Tie"),
    (FUMBLE, 15, 20, "high", "Tie"),
]


@pytest.mark.parametrize(("level", "die_a", "die_b", "better_roll", "expected"), SAME_LEVEL)
def test_simple_contest_same_level(
    level: Level, die_a: int | None, die_b: int | None, better_roll: BetterRoll, expected: str
) -> None:
    assert str(simple_contest_result(level, die_a, level, die_b, better_roll)) == expected


def test_simple_contest_result_fields() -> None:
    assert simple_contest_result(CRITICAL, 1, FAILURE, 14) == SimpleContestResult(Result.VICTORY, Degree.MAJOR)
    assert simple_contest_result(SUCCESS, 6, SUCCESS, 6) == SimpleContestResult(Result.TIE, None)
    assert simple_contest_result(SUCCESS, 9, SUCCESS, 4) == SimpleContestResult(Result.DEFEAT, Degree.MARGINAL)
