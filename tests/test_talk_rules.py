"""The pure rules of table talk: what ``/roll`` reads (and the sentence for what it cannot), the dice it rolls
from the talk seed, who may whisper to whom, the text's bounds, the rate per seat, and the check of an export."""

from __future__ import annotations

import pytest

from protocol import errors
from protocol.common import Seat
from protocol.errors import Refused
from protocol.talk import RolledDie, TalkLine, TalkRoll
from server.engine.dice import face, seed_hash
from server.talk import RateWindow, check_talk, cleaned, recipient, roll_of, rolled

SEED = bytes(range(32))


@pytest.mark.parametrize(
    ("text", "expression", "sides", "modifier", "comment"),
    [
        ("/roll 2d6+1", "2d6+1", [6, 6], 1, ""),
        ("/r d20", "d20", [20], 0, ""),
        ("/roll 3d8-2 + 1d4", "3d8-2+1d4", [8, 8, 8, 4], -2, ""),
        ("/roll d20 stealth check", "d20", [20], 0, "stealth check"),
        ("/ROLL 1D100 -5 to hit", "1d100-5", [100], -5, "to hit"),
        ("/roll 2d6 - 1d4 + 3", "2d6-1d4+3", [6, 6, 4], 3, ""),
    ],
)
def test_a_roll_reads_its_dice_its_numbers_and_its_comment(
    text: str, expression: str, sides: list[int], modifier: int, comment: str
) -> None:
    read = roll_of(text)
    assert read is not None
    assert (read[0].text, read[0].sides, read[0].modifier, read[1]) == (expression, sides, modifier, comment)


@pytest.mark.parametrize("text", ["hello", "/rolled the dice", "/me waves", "/r2d6", "roll 2d6"])
def test_any_other_line_is_no_roll(text: str) -> None:
    assert roll_of(text) is None


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("/roll", "write the dice after /roll"),
        ("/roll 2d6+", "“2d6+” ends with “+”"),
        ("/roll 2d6x", "“2d6x” is neither dice"),
        ("/roll fireball", "“fireball” is neither dice"),
        ("/roll 21d6", "a roll has at most 20 dice"),
        ("/roll 10d6+11d4", "rolls 21 dice; a roll has at most 20"),
        ("/roll d1", "a die has 2 to 1000 sides"),
        ("/roll d1001", "a die has 2 to 1000 sides"),
        ("/roll 0d6", "rolls no die"),
        ("/roll 4", "rolls no die"),
        ("/roll d6+1001", "numbers in a roll are at most 1000"),
        ("/roll d6+1000+1000", "add up to at most ±1000"),
        ("/roll d6+99999999999999999999", "too big"),
    ],
)
def test_a_roll_that_does_not_read_says_what_is_wrong(text: str, sentence: str) -> None:
    with pytest.raises(Refused) as refused:
        roll_of(text)
    assert refused.value.code == errors.TALK_BAD_ROLL and sentence in refused.value.message


def test_the_faces_of_line_n_come_from_the_seed_keyed_minus_n() -> None:
    read = roll_of("/roll 3d8-2+1d4")
    assert read is not None
    roll = rolled(read[0], SEED, 7)
    assert [d.face for d in roll.dice] == [face(SEED, -7, j, s) for j, s in enumerate([8, 8, 8, 4])]
    assert roll.total == sum(d.face for d in roll.dice) - 2
    minus = roll_of("/roll 2d6-1d4")
    assert minus is not None
    subtracted = rolled(minus[0], SEED, 3)
    assert subtracted.total == subtracted.dice[0].face + subtracted.dice[1].face - subtracted.dice[2].face
    assert roll.seed_hash == seed_hash(SEED) and rolled(read[0], SEED, 8) != roll


def test_who_may_whisper_to_whom() -> None:
    gm, gm2, ann, bob = Seat("gm", "gm"), Seat("gm2", "gm"), Seat("ann", "player"), Seat("bob", "player")
    seats = [gm, gm2, ann, bob]
    assert recipient(ann, None, seats) is None
    assert recipient(ann, "gm", seats) == gm and recipient(ann, "gm2", seats) == gm2
    assert recipient(gm, "bob", seats) == bob
    for speaker, to, code in [
        (ann, "bob", errors.TALK_NOT_ALLOWED),
        (ann, "ann", errors.TALK_NOT_ALLOWED),
        (gm, "gm2", errors.TALK_NOT_ALLOWED),
        (gm, "carol", errors.TALK_UNKNOWN_SEAT),
    ]:
        with pytest.raises(Refused) as refused:
            recipient(speaker, to, seats)
        assert refused.value.code == code


def test_a_line_is_trimmed_cleaned_and_bounded() -> None:
    assert cleaned("  hi\x1b[31m there\u202e \n") == "hi[31m there"
    assert cleaned("x" * 500) == "x" * 500
    for text, code in [
        (" \t\n", errors.TALK_EMPTY),
        ("\x00\x01", errors.TALK_EMPTY),
        ("x" * 501, errors.TALK_TOO_LONG),
    ]:
        with pytest.raises(Refused) as refused:
            cleaned(text)
        assert refused.value.code == code


def test_a_seat_says_at_most_eight_lines_in_ten_seconds() -> None:
    rate = RateWindow()
    for i in range(8):
        rate.check("c", "ann", float(i))
        rate.count("c", "ann", float(i))
    with pytest.raises(Refused) as refused:
        rate.check("c", "ann", 9.0)
    assert refused.value.code == errors.TALK_TOO_FAST and "wait 1 s" in refused.value.message
    rate.check("c", "bob", 9.0)  # another seat
    rate.check("other", "ann", 9.0)  # another contest
    rate.check("c", "ann", 10.0)  # the first line is ten seconds old


def line(n: int, faces: list[int], total: int | None = None, digest: str = seed_hash(SEED)) -> TalkLine:
    dice = [RolledDie(sides=6, face=f) for f in faces]
    roll = TalkRoll("2d6", dice, 0, sum(faces) if total is None else total, digest)
    return TalkLine(n=n, from_="gm", name="GM", text="", at="t", version=1, roll=roll)


def test_the_check_of_an_exported_talk() -> None:
    honest = [face(SEED, -1, j, 6) for j in range(2)]
    seeds = {seed_hash(SEED): SEED}
    report = check_talk([line(1, honest), 2], seeds, concluded=True)
    assert (report.problem, report.rolls_checked, report.lines) == (None, 2, 2)
    assert check_talk([line(1, honest)], {}, concluded=False).unchecked == 1
    forged = [honest[0] % 6 + 1, honest[1]]
    problems = {
        "gap": check_talk([line(2, honest)], seeds, True).problem,
        "sum": check_talk([line(1, honest, total=99)], seeds, True).problem,
        "faces": check_talk([line(1, forged)], seeds, True).problem,
        "hidden seed": check_talk([line(1, honest)], {}, True).problem,
        "two seeds": check_talk([line(1, honest), line(2, honest, digest="ab")], seeds, False).problem,
    }
    assert problems["gap"] == "talk line 1: numbered 2 (a gap or a reordering)"
    assert problems["sum"] == "talk line 1: the roll “2d6” adds up to " + f"{sum(honest)}, not 99"
    assert problems["faces"] == f"talk line 1: the roll “2d6” shows {forged}, but the revealed seed gives {honest}"
    assert problems["hidden seed"] == "talk line 1: the seed of the roll “2d6” is not revealed"
    assert problems["two seeds"] == "talk line 2: this roll comes from another seed than the talk's earlier rolls"
