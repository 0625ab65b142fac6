"""Ratings: RULES.md §1 "Ratings" (value = TN + 20 x masteries; modifiers add to the value, split again)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.rules.questworlds.ratings import Rating

# written, tn, masteries, value, canonical form
WRITTEN = [
    ("14", 14, 0, 14, "14"),
    ("1", 1, 0, 1, "1"),
    ("20", 20, 0, 20, "20"),
    ("5W", 5, 1, 25, "5W"),
    ("5W2", 5, 2, 45, "5W2"),
    ("5M", 5, 1, 25, "5W"),
    ("5M2", 5, 2, 45, "5W2"),
    ("5w", 5, 1, 25, "5W"),
    ("5m2", 5, 2, 45, "5W2"),
    ("5W1", 5, 1, 25, "5W"),
    ("1W", 1, 1, 21, "1W"),
    ("20W", 20, 1, 40, "20W"),
    ("1W2", 1, 2, 41, "1W2"),
    ("17W3", 17, 3, 77, "17W3"),
    (" 12W ", 12, 1, 32, "12W"),
    ("0", 0, 0, 0, "0"),
    ("-3", -3, 0, -3, "-3"),
    ("\u22123", -3, 0, -3, "-3"),
]


@pytest.mark.parametrize(("written", "tn", "masteries", "value", "canonical"), WRITTEN)
def test_parse(written: str, tn: int, masteries: int, value: int, canonical: str) -> None:
    rating = Rating.parse(written)
    assert rating == Rating(tn=tn, masteries=masteries)
    assert rating.value == value
    assert str(rating) == canonical


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("", "cannot read rating"),
        ("   ", "cannot read rating"),
        ("W", "cannot read rating"),
        ("W2", "cannot read rating"),
        ("abc", "cannot read rating"),
        ("5X", "cannot read rating"),
        ("5W2W", "cannot read rating"),
        ("1.5", "cannot read rating"),
        ("5 W", "cannot read rating"),
        ("0W", "the target number before W is 1 to 20"),
        ("21W", "the target number before W is 1 to 20"),
        ("-5W", "the target number before W is 1 to 20"),
        ("5W0", "masteries after W is at least 1"),
        ("25", "write higher ratings with masteries, e.g. 5W"),
        ("41", "e.g. 1W2"),
    ],
)
def test_parse_refuses(written: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rating.parse(written)


# value, tn, masteries, canonical form: 20 is written "20", 21 "1W", 40 "20W", 41 "1W2"
VALUES = [
    (23, 3, 1, "3W"),
    (20, 20, 0, "20"),
    (21, 1, 1, "1W"),
    (40, 20, 1, "20W"),
    (41, 1, 2, "1W2"),
    (45, 5, 2, "5W2"),
    (60, 20, 2, "20W2"),
    (61, 1, 3, "1W3"),
    (1, 1, 0, "1"),
    (14, 14, 0, "14"),
    (0, 0, 0, "0"),
    (-4, -4, 0, "-4"),
]


@pytest.mark.parametrize(("value", "tn", "masteries", "canonical"), VALUES)
def test_from_value(value: int, tn: int, masteries: int, canonical: str) -> None:
    rating = Rating.from_value(value)
    assert rating == Rating(tn=tn, masteries=masteries)
    assert str(rating) == canonical


# written, modifier, written after the modifier
MODIFIED = [
    ("17", 6, "3W"),
    ("17W", 6, "3W2"),
    ("5W", -6, "19"),
    ("1W", -1, "20"),
    ("20", 1, "1W"),
    ("3", -5, "-2"),
    ("3", -3, "0"),
    ("14", 0, "14"),
]


@pytest.mark.parametrize(("written", "modifier", "expected"), MODIFIED)
def test_modifiers_add_to_the_value_which_is_split_again(written: str, modifier: int, expected: str) -> None:
    assert str(Rating.parse(written).modified(modifier)) == expected


@pytest.mark.parametrize(("written", "rolls"), [("1", True), ("20", True), ("5W", True), ("0", False), ("-3", False)])
def test_a_value_of_0_or_less_rolls_no_die(written: str, rolls: bool) -> None:
    assert Rating.parse(written).rolls is rolls


@pytest.mark.parametrize(
    ("tn", "masteries", "message"),
    [
        (5, -1, "masteries"),
        (21, 0, "at most 20"),
        (0, 1, "needs a target number of 1 to 20"),
        (-2, 2, "needs a target number of 1 to 20"),
    ],
)
def test_constructor_refuses(tn: int, masteries: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rating(tn=tn, masteries=masteries)


ratings = st.one_of(
    st.builds(Rating, tn=st.integers(min_value=-100, max_value=20), masteries=st.just(0)),
    st.builds(Rating, tn=st.integers(min_value=1, max_value=20), masteries=st.integers(min_value=1, max_value=50)),
)


@given(ratings)
def test_value_round_trip(rating: Rating) -> None:
    assert Rating.from_value(rating.value) == rating


@given(ratings)
def test_text_round_trip(rating: Rating) -> None:
    assert Rating.parse(str(rating)) == rating


@given(st.integers(min_value=-1000, max_value=1000))
def test_splitting_keeps_the_value(value: int) -> None:
    rating = Rating.from_value(value)
    assert rating.value == value
    if value > 0:
        assert 1 <= rating.tn <= 20
    else:
        assert rating.masteries == 0
