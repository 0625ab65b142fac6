"""The seed's tables cell by cell (seed 003 §5.2.1.1, §5.2.2.1) and the SRD 0.965 simple contest."""

from __future__ import annotations

import pytest

from server.rules.questworlds.ratings import Rating
from server.rules.scored.points import Result, compare, outcome_degree, resolution_points, successes


@pytest.mark.parametrize(("degree", "points"), [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
def test_the_resolution_point_table(degree: int, points: int) -> None:
    assert resolution_points(degree) == points


@pytest.mark.parametrize(
    ("difference", "degree"),
    [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2), (7, 3), (8, 3), (9, 4), (10, 4), (14, 4)],
)
def test_the_scored_sequence_outcome_table(difference: int, degree: int) -> None:
    assert outcome_degree(difference) == degree
    assert outcome_degree(-difference) == degree  # the loser's degree of defeat reads the same row


@pytest.mark.parametrize(
    ("face", "rating", "count"),
    [
        (1, "15", 1),
        (14, "15", 1),
        (15, "15", 2),  # a big success: the die shows the TN exactly
        (16, "15", 0),
        (20, "15", 0),
        (20, "20", 2),
        (16, "15W", 1),  # a failed die still counts the mastery
        (15, "15W2", 4),
        (3, "5W", 2),
    ],
)
def test_successes_count_die_big_success_and_masteries(face: int, rating: str, count: int) -> None:
    assert successes(face, Rating.parse(rating)) == count


@pytest.mark.parametrize(
    ("first", "second", "result"),
    [
        ((2, 5), (1, 9), Result(0, 1)),  # more successes win by the difference
        ((0, 19), (3, 4), Result(1, 3)),
        ((1, 12), (1, 7), Result(0, 0)),  # equal successes: the higher die, degree 0
        ((1, 7), (1, 12), Result(1, 0)),
        ((0, 18), (0, 18), Result(None, 0)),  # equal dice too: a standoff
    ],
)
def test_the_winner_and_degree_of_a_simple_contest(
    first: tuple[int, int], second: tuple[int, int], result: Result
) -> None:
    assert compare(first, second) == result
