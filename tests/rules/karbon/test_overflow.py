"""Chips beyond a full stack start the next stack, whatever fills the victory track: the peril's hits and
the chips stacked in the test alike (docs/rules/karbon.md, "The Stacks")."""

from __future__ import annotations

from protocol.rulesets import karbon as k
from tests.rules.karbon.table import ANN, GM, Table

FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
NARRATOR = ["d8-1", "d8-2"]


def one_slot_left() -> Table:
    """Two slots, one X marked, the narrator's stack at four, peril 2, a round ready to roll."""
    table = Table()
    table.start(FIVE, NARRATOR, consequence=2, peril=2)
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(NARRATOR, 4)}, peril=[5, 5])
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    table.do(GM, k.Adjust(target="narrator_stack", delta=4, reason="the narrator's stack from earlier"))
    table.risk()
    assert table.running.track == ["X"] and table.chips("narrator") == (0, 4)
    return table


def test_a_peril_hit_beyond_the_glitch_that_fills_the_track_starts_the_next_stack() -> None:
    table = one_slot_left()
    table.roll({**dict.fromkeys(FIVE, 4), **dict.fromkeys(NARRATOR, 4)}, peril=[1, 2])
    assert table.running.track == ["X", "O"]
    assert table.chips("narrator") == (0, 1)  # the fifth chip paid out; the sixth is on the next stack

    # side-swiped erases the X: play goes on, and the sixth chip is still there
    table.do(ANN, k.ChooseGlitch(choice="side_swiped", option="chips"))
    assert table.running.track == ["O"]
    assert table.chips("narrator") == (0, 1)


def test_chips_stacked_in_the_test_beyond_the_payout_that_fills_the_track_start_the_next_stack() -> None:
    table = one_slot_left()
    table.roll({**dict.fromkeys(FIVE, 4), **dict.fromkeys(NARRATOR, 1)}, peril=[5, 5])  # the narrator wins: 2
    assert table.chips("narrator") == (2, 4)
    table.do(GM, k.Stack(side="narrator", chips=2))
    assert table.running.track == ["X", "O"]
    assert table.chips("narrator") == (0, 1)  # not back in the hand: on the next stack

    table.do(ANN, k.ChooseGlitch(choice="side_swiped", option="dice", dice=["d8-1", "d8-2"]))
    assert table.running.track == ["O"]
    assert table.chips("narrator") == (0, 1)


def test_a_full_track_leaves_the_next_stack_at_four_at_most() -> None:
    """With the track full a fifth chip would pay out a mark the track has no room for: stacking more than
    fits is refused, and peril hits beyond it are not placed."""
    table = one_slot_left()
    table.do(GM, k.ChangePeril(peril=7, reason="the roof gives way"))
    table.roll({**dict.fromkeys(FIVE, 4), **dict.fromkeys(NARRATOR, 4)}, peril=[1] * 7)
    assert table.running.track == ["X", "O"]
    assert table.chips("narrator") == (0, 4)  # one paid out, four on the next stack, two not placed


def test_stacking_more_than_the_track_has_room_for_is_refused() -> None:
    table = one_slot_left()
    table.roll({**dict.fromkeys(FIVE, 4), **dict.fromkeys(NARRATOR, 1)}, peril=[5, 5])
    table.do(GM, k.Adjust(target="narrator_hand", delta=4, reason="chips from earlier"))
    assert table.chips("narrator") == (6, 4)
    assert table.refused(GM, k.Stack(side="narrator", chips=6)) == "rules/track_full"
    assert table.chips("narrator") == (6, 4)
    table.do(GM, k.Stack(side="narrator", chips=5))
    assert table.chips("narrator") == (1, 4)
