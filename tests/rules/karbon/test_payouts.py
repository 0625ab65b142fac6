"""Five chips on a stack pay out: a break (X) or a glitch (O), and every choice the seed gives after each."""

from __future__ import annotations

from protocol.rulesets import karbon as k
from tests.rules.karbon.table import ANN, GM, Table

FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]


def to_break(peril: int = 0, narrator: list[str] | None = None, narrator_chips: int = 0) -> Table:
    """The agent rolls five hits, stacks them and catches a break (X); the narrator holds ``narrator``."""
    table = Table()
    narrator = narrator if narrator is not None else ["d8-1", "d8-2", "d10-1"]
    table.start(FIVE, narrator, consequence=3, peril=peril)
    if narrator_chips:
        table.do(GM, k.Adjust(target="narrator_hand", delta=narrator_chips, reason="chips from earlier"))
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(narrator, 4)}, peril=[5] * peril)
    table.do(ANN, k.Stack(side="agent", chips=5))
    assert table.running.track == ["X"] and table.chips("agent") == (0, 0)
    return table


D8 = ["d8-1", "d8-2", "d8-3", "d8-4", "d8-5"]


def to_glitch(wins: int = 0) -> Table:
    """The agent (five d6) catches ``wins`` breaks first; then the narrator (five d8) rolls five hits,
    stacks them and throws a glitch (O)."""
    table = Table()
    table.start(FIVE, D8, consequence=4)
    for _ in range(wins):
        table.risk()
        table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(D8, 4)})
        table.do(ANN, k.Stack(side="agent", chips=5))
        table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 5), **dict.fromkeys(D8, 1)})
    table.do(GM, k.Stack(side="narrator", chips=5))
    assert table.running.track == ["X"] * wins + ["O"] and table.chips("narrator") == (0, 0)
    return table


def test_a_break_waits_for_the_players_choice() -> None:
    table = to_break()
    assert [(w.payout, w.choice) for w in table.running.waiting] == [("break", None)]
    assert table.refused(GM, k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["r6-1"])) == "auth/not_your_seat"
    assert table.refused(ANN, k.ChooseGlitch(choice="hurt")) == "rules/out_of_phase"


def test_break_security_removes_a_peril_die() -> None:
    table = to_break(peril=2)
    table.do(ANN, k.ChooseBreak(choice="security"))
    assert table.running.peril == 1
    assert not table.running.waiting


def test_break_security_needs_a_peril_die() -> None:
    table = to_break(peril=0)
    assert table.refused(ANN, k.ChooseBreak(choice="security")) == "rules/no_peril"


def test_break_footing_the_narrator_discards_its_chips_in_hand() -> None:
    table = to_break(narrator_chips=3)
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    assert table.chips("narrator") == (0, 0)
    assert table.hand("narrator") == ["d8-1", "d8-2", "d10-1"]


def test_break_footing_the_narrator_gives_two_of_its_dice() -> None:
    table = to_break()
    assert table.refused(ANN, k.ChooseBreak(choice="footing", option="dice", dice=["d8-1"])) == "rules/wrong_count"
    assert table.refused(ANN, k.ChooseBreak(choice="footing", option="dice", dice=["d8-1", "d6-1"])) == (
        "rules/wrong_place"
    )
    table.do(ANN, k.ChooseBreak(choice="footing", option="dice", dice=["d8-1", "d10-1"]))
    assert table.hand("narrator") == ["d8-2"]
    assert table.hand("agent") == [*FIVE, "d8-1", "d10-1"]


def test_break_footing_from_a_narrator_with_one_die_gives_that_die() -> None:
    table = to_break(narrator=["d10-3"])
    table.do(ANN, k.ChooseBreak(choice="footing", option="dice", dice=["d10-3"]))
    assert table.hand("narrator") == []


def test_break_advantage_trades_hand_dice_with_the_reserve() -> None:
    table = to_break()
    table.do(ANN, k.ChooseBreak(choice="advantage", dice=["d6-1", "d6-2"], reserve=["r6-1", "r6-4"]))
    assert table.hand("agent") == ["d6-3", "d6-4", "d6-5", "r6-1", "r6-4"]
    assert table.rules.ids("reserve") == ["d6-1", "d6-2", "r6-2", "r6-3", "r6-5"]


def test_break_advantage_trades_at_most_two_and_changes_nothing_when_refused() -> None:
    table = to_break()
    three = k.ChooseBreak(choice="advantage", dice=["d6-1", "d6-2", "d6-3"], reserve=["r6-1", "r6-2", "r6-3"])
    assert table.refused(ANN, three) == "rules/too_many_dice"
    uneven = k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["r6-1", "r6-2"])
    assert table.refused(ANN, uneven) == "rules/wrong_count"
    not_reserve = k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["d8-1"])
    assert table.refused(ANN, not_reserve) == "rules/wrong_place"
    assert table.running.waiting[0].payout == "break"


def test_a_glitch_is_the_players_choice_then_hurt_is_the_narrators() -> None:
    table = to_glitch()
    assert table.refused(GM, k.ChooseGlitch(choice="hurt")) == "auth/not_your_seat"
    table.do(ANN, k.ChooseGlitch(choice="hurt"))
    assert [(w.payout, w.choice) for w in table.running.waiting] == [("glitch", "hurt")]
    assert table.refused(GM, k.NarratorOption(option="peril")) == "rules/bad_choice"
    assert table.refused(ANN, k.NarratorOption(option="injury")) == "auth/forbidden"


def test_glitch_hurt_an_injury_and_two_chips() -> None:
    table = to_glitch()
    table.do(ANN, k.ChooseGlitch(choice="hurt"))
    table.do(GM, k.NarratorOption(option="injury", label="Physical 1"))
    assert table.rules.injuries == ["Physical 1"]
    assert table.chips("agent") == (2, 0)
    assert not table.running.waiting


def test_glitch_hurt_a_condition_and_no_chips() -> None:
    table = to_glitch()
    table.do(ANN, k.ChooseGlitch(choice="hurt"))
    table.do(GM, k.NarratorOption(option="condition", label="Shaken"))
    assert table.rules.conditions == ["Shaken"] and table.rules.injuries == []
    assert table.chips("agent") == (0, 0)


def test_glitch_plans_the_narrator_takes_two_dice_from_the_pool() -> None:
    table = to_glitch()
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    assert table.refused(GM, k.NarratorOption(option="dice", dice=["d6-1", "d10-1"])) == "rules/wrong_place"
    table.do(GM, k.NarratorOption(option="dice", dice=["d10-1", "d10-2"]))
    assert table.hand("narrator") == [*D8, "d10-1", "d10-2"]
    assert "d10-1" not in table.rules.ids("pool")


def test_glitch_plans_the_narrator_adds_a_peril_die() -> None:
    table = to_glitch()
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    table.do(GM, k.NarratorOption(option="peril"))
    assert table.running.peril == 1


def test_glitch_plans_cannot_take_from_an_empty_pool() -> None:
    table = to_glitch()
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    table.do(GM, k.ChangeChallenge(challenge=15, dice=table.rules.ids("pool")))
    assert table.rules.ids("pool") == []
    assert table.refused(GM, k.NarratorOption(option="dice", dice=[])) == "rules/pool_empty"


def test_glitch_side_swiped_erases_a_win_and_takes_the_narrators_chips() -> None:
    table = to_glitch(wins=1)
    table.do(GM, k.Adjust(target="narrator_hand", delta=3, reason="chips from earlier"))
    table.do(ANN, k.ChooseGlitch(choice="side_swiped", option="chips"))
    assert table.running.track == ["O"]
    assert table.chips("agent") == (3, 0) and table.chips("narrator") == (0, 0)


def test_glitch_side_swiped_erases_a_win_and_takes_two_dice_of_the_players_choice() -> None:
    table = to_glitch(wins=1)
    table.do(ANN, k.ChooseGlitch(choice="side_swiped", option="dice", dice=["d8-2", "d8-5"]))
    assert table.running.track == ["O"]
    assert table.hand("agent") == [*FIVE, "d8-2", "d8-5"]
    assert table.hand("narrator") == ["d8-1", "d8-3", "d8-4"]


def test_glitch_side_swiped_needs_a_win_to_erase() -> None:
    table = to_glitch(wins=0)
    assert table.refused(ANN, k.ChooseGlitch(choice="side_swiped", option="chips")) == "rules/no_win_to_erase"


def test_stacking_is_for_the_rounds_winner_only() -> None:
    table = Table()
    table.start(["d6-1", "d6-2"], ["d6-3", "d6-4"])
    table.risk()
    table.roll({"d6-1": 1, "d6-2": 1, "d6-3": 1, "d6-4": 4})
    table.do(GM, k.Adjust(target="narrator_hand", delta=2, reason="chips from earlier"))
    before = table.contest
    assert table.refused(GM, k.Stack(side="narrator", chips=1)) == "rules/not_round_winner"
    assert table.refused(ANN, k.Stack(side="agent", chips=3)) == "rules/not_enough_chips"
    assert table.refused(ANN, k.Stack(side="narrator", chips=1)) == "auth/forbidden"
    assert table.contest is before
