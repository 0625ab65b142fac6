"""One roll and its bumps: RULES.md §1 "One roll", "Bumps" and "Same level"."""

from __future__ import annotations

import pytest

from server.rules.questworlds.levels import (
    BetterRoll,
    Level,
    apply_masteries,
    bump_opponent_down,
    bump_up,
    compare_results,
    roll_level,
)

CRITICAL, SUCCESS, FAILURE, FUMBLE = Level.CRITICAL, Level.SUCCESS, Level.FAILURE, Level.FUMBLE


def test_levels_are_ordered() -> None:
    assert FUMBLE < FAILURE < SUCCESS < CRITICAL


@pytest.mark.parametrize(
    ("level", "label"), [(FUMBLE, "Fumble"), (FAILURE, "Failure"), (SUCCESS, "Success"), (CRITICAL, "Critical")]
)
def test_labels(level: Level, label: str) -> None:
    assert level.label == label
    assert str(level) == label
    assert Level.from_label(label) == level
    assert Level.from_label(label.lower()) == level


def test_unknown_label() -> None:
    with pytest.raises(ValueError, match="unknown result level"):
        Level.from_label("Tie")


# die, TN, level
ROLLS = [
    (1, 1, CRITICAL),
    (1, 10, CRITICAL),
    (1, 20, CRITICAL),
    (20, 20, FUMBLE),
    (20, 1, FUMBLE),
    (20, 10, FUMBLE),
    (2, 1, FAILURE),
    (2, 2, SUCCESS),
    (3, 2, FAILURE),
    (7, 10, SUCCESS),
    (10, 10, SUCCESS),
    (11, 10, FAILURE),
    (19, 10, FAILURE),
    (18, 19, SUCCESS),
    (19, 19, SUCCESS),
    (19, 18, FAILURE),
    (19, 20, SUCCESS),
]


@pytest.mark.parametrize(("die", "tn", "level"), ROLLS)
def test_roll_level(die: int, tn: int, level: Level) -> None:
    assert roll_level(die, tn) is level


@pytest.mark.parametrize("tn", [0, -1, -15])
def test_a_value_of_0_or_less_always_fails_without_a_die(tn: int) -> None:
    assert roll_level(None, tn) is FAILURE


@pytest.mark.parametrize(
    ("die", "tn", "message"),
    [
        (5, 0, "rolls no die"),
        (1, -3, "rolls no die"),
        (None, 5, "needs a d20 face"),
        (0, 5, "not a face of a d20"),
        (21, 5, "not a face of a d20"),
        (5, 21, "at most 20"),
    ],
)
def test_roll_level_refuses(die: int | None, tn: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        roll_level(die, tn)


@pytest.mark.parametrize(
    ("level", "up"), [(FUMBLE, FAILURE), (FAILURE, SUCCESS), (SUCCESS, CRITICAL), (CRITICAL, CRITICAL)]
)
def test_bump_up_never_above_critical(level: Level, up: Level) -> None:
    assert bump_up(level) is up


@pytest.mark.parametrize(
    ("level", "down"), [(CRITICAL, SUCCESS), (SUCCESS, FAILURE), (FAILURE, FUMBLE), (FUMBLE, FUMBLE)]
)
def test_bump_down_never_below_fumble(level: Level, down: Level) -> None:
    assert bump_opponent_down(level) is down


# rolled a, masteries a, rolled b, masteries b, bumped a, bumped b (bump-down on)
MASTERIES = [
    # 5W2 against 15W: net one mastery for the first side
    (SUCCESS, 2, SUCCESS, 1, CRITICAL, SUCCESS),
    (FAILURE, 2, SUCCESS, 1, SUCCESS, SUCCESS),
    (FUMBLE, 2, FAILURE, 1, FAILURE, FAILURE),
    # masteries cancel one for one
    (FAILURE, 1, SUCCESS, 1, FAILURE, SUCCESS),
    (FUMBLE, 3, CRITICAL, 3, FUMBLE, CRITICAL),
    (SUCCESS, 0, FAILURE, 0, SUCCESS, FAILURE),
    # each net mastery bumps its holder up one step
    (FUMBLE, 2, FUMBLE, 0, SUCCESS, FUMBLE),
    (FUMBLE, 3, SUCCESS, 0, CRITICAL, SUCCESS),
    (FAILURE, 0, SUCCESS, 1, FAILURE, CRITICAL),
    # leftover masteries at Critical bump the opponent down one step each
    (CRITICAL, 1, SUCCESS, 0, CRITICAL, FAILURE),
    (CRITICAL, 2, SUCCESS, 0, CRITICAL, FUMBLE),
    (CRITICAL, 3, SUCCESS, 0, CRITICAL, FUMBLE),
    (CRITICAL, 2, CRITICAL, 1, CRITICAL, SUCCESS),
    (SUCCESS, 2, SUCCESS, 0, CRITICAL, FAILURE),
    (FAILURE, 0, SUCCESS, 2, FUMBLE, CRITICAL),
    (FUMBLE, 0, FUMBLE, 5, FUMBLE, CRITICAL),
    (SUCCESS, 1, CRITICAL, 3, FUMBLE, CRITICAL),
]


@pytest.mark.parametrize(("a", "ma", "b", "mb", "bumped_a", "bumped_b"), MASTERIES)
def test_apply_masteries(a: Level, ma: int, b: Level, mb: int, bumped_a: Level, bumped_b: Level) -> None:
    assert apply_masteries(a, ma, b, mb) == (bumped_a, bumped_b)


# the Hero Wars variant: leftover masteries at Critical do nothing
NO_BUMP_DOWN = [
    (CRITICAL, 1, SUCCESS, 0, CRITICAL, SUCCESS),
    (SUCCESS, 3, FAILURE, 0, CRITICAL, FAILURE),
    (FAILURE, 0, SUCCESS, 2, FAILURE, CRITICAL),
    (SUCCESS, 2, SUCCESS, 1, CRITICAL, SUCCESS),
]


@pytest.mark.parametrize(("a", "ma", "b", "mb", "bumped_a", "bumped_b"), NO_BUMP_DOWN)
def test_apply_masteries_without_bump_down(
    a: Level, ma: int, b: Level, mb: int, bumped_a: Level, bumped_b: Level
) -> None:
    assert apply_masteries(a, ma, b, mb, bump_down=False) == (bumped_a, bumped_b)


def test_negative_masteries_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        apply_masteries(SUCCESS, -1, SUCCESS, 0)


# level a, die a, level b, die b, better roll, comparison
COMPARISONS: list[tuple[Level, int | None, Level, int | None, BetterRoll, int]] = [
    (CRITICAL, 1, SUCCESS, 5, "low", 1),
    (FAILURE, 15, SUCCESS, 5, "low", -1),
    (FAILURE, 15, SUCCESS, 5, "high", -1),
    (SUCCESS, 3, SUCCESS, 8, "low", 1),
    (SUCCESS, 3, SUCCESS, 8, "high", -1),
    (SUCCESS, 8, SUCCESS, 3, "low", -1),
    (SUCCESS, 8, SUCCESS, 3, "high", 1),
    (SUCCESS, 6, SUCCESS, 6, "low", 0),
    (SUCCESS, 6, SUCCESS, 6, "high", 0),
    (FUMBLE, 20, FUMBLE, 20, "low", 0),
    (FUMBLE, 15, FUMBLE, 20, "low", 0),
    (FUMBLE, 15, FUMBLE, 20, "high", 0),
    (FAILURE, None, FAILURE, 12, "low", -1),
    (FAILURE, 12, FAILURE, None, "high", 1),
    (FAILURE, None, FAILURE, None, "low", 0),
    (FAILURE, None, FUMBLE, 20, "low", 1),
]


@pytest.mark.parametrize(("a", "die_a", "b", "die_b", "better_roll", "expected"), COMPARISONS)
def test_compare_results(
    a: Level, die_a: int | None, b: Level, die_b: int | None, better_roll: BetterRoll, expected: int
) -> None:
    assert compare_results(a, die_a, b, die_b, better_roll) == expected
