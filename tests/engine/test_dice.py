"""Committed dice: reproducible from the seed, unbiased, and checkable once the seed is revealed."""

from __future__ import annotations

from collections import Counter

import pytest

from protocol.errors import Refused
from server.engine.dice import Roller, check, face, seed_hash

SEED = b"\x07" * 32


def test_a_face_is_a_pure_function_of_seed_key_and_index() -> None:
    assert face(SEED, 5, 0, 20) == face(SEED, 5, 0, 20)
    faces = {face(SEED, key, index, 20) for key in range(1, 30) for index in range(3)}
    assert faces <= set(range(1, 21)) and len(faces) > 15
    assert [face(b"\x08" * 32, 5, i, 20) for i in range(8)] != [face(SEED, 5, i, 20) for i in range(8)]


@pytest.mark.parametrize("sides", [2, 3, 6, 10, 20, 100])
def test_every_face_comes_up_about_equally_often(sides: int) -> None:
    rolls = 600 * sides
    counts = Counter(face(SEED, key, 0, sides) for key in range(rolls))
    assert set(counts) == set(range(1, sides + 1))
    # chi-square with sides - 1 degrees of freedom, well inside the 99.9% bound for a fair die
    expected = rolls / sides
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    assert chi2 < 3 * sides + 30


def test_server_rolls_of_one_decision_never_share_an_index() -> None:
    roller = Roller("server", SEED, key=9)
    first, second = roller.roll([20, 20]), roller.roll([6])
    assert (first.key, first.first, second.first) == (9, 0, 2)
    assert check(first, SEED) and check(second, SEED)
    assert not check(first, b"\x00" * 32)


def test_a_changed_face_fails_the_check() -> None:
    dice = Roller("server", SEED, key=3).roll([20])
    forged = type(dice)(source="server", sides=dice.sides, faces=[dice.faces[0] % 20 + 1], key=3, first=0)
    assert not check(forged, SEED)


def test_physical_dice_take_typed_faces_in_range() -> None:
    roller = Roller("physical", None, key=1)
    assert roller.roll([20, 6], [20, 1]).faces == [20, 1]
    for typed, code in [
        (None, "dice/wrong_mode"),
        ([3], "dice/bad_face"),
        ([0, 1], "dice/bad_face"),
        ([3, 7], "dice/bad_face"),
    ]:
        with pytest.raises(Refused) as refused:
            roller.roll([20, 6], typed)
        assert refused.value.code == code


def test_the_seed_hash_commits_to_the_seed() -> None:
    assert seed_hash(SEED) != seed_hash(b"\x08" * 32)
    assert len(seed_hash(SEED)) == 64
