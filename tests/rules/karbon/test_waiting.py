"""What a Karbon scene waits for, phase by phase, as each page says it: the GM setting up a contest and
entering the hands, the sealed risk, the roll, the test (each winner stacks or ends it), a break's or a
glitch's choices, an aftermath. Each awaited seat then plays the command the scene waits for, and the scene
accepts it."""

from __future__ import annotations

import msgspec

from protocol.common import Seat
from protocol.events import Declare
from protocol.rulesets import karbon as k
from tests.rules.karbon.table import ANN, GM, SPECTATOR, Table, contest, scene
from tests.rules.karbon.test_payouts import D8, FIVE
from tests.rules.waiting import awaited, named


def test_a_contest_waits_for_the_gm_the_risk_the_roll_the_test_and_the_choices() -> None:
    table = Table(named(scene()))
    assert awaited(table, SPECTATOR) == [(("gm",), "the GM", "set up a contest")]
    table.do(GM, contest(level=5, challenge=5, consequence=3))
    assert awaited(table, ANN) == [(("gm",), "the GM", "enter the hands drawn")]  # physical dice: named
    table.do(GM, k.DrawHands(agent=FIVE, narrator=D8))
    assert awaited(table) == [(("ann",), "Ann", "seal the risk")]
    table.do(ANN, Declare(participant="vera", payload=k.Risk(all_in=False)))
    assert awaited(table) == [(("gm",), "the GM", "roll round 1")]  # physical dice: the GM types the faces
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(D8, 2)})  # a tie in hits: both stack
    assert awaited(table) == [(("ann", "gm"), "Ann and the GM", "stack chips or end the test")]
    table.do(GM, k.EndTest(side="narrator"))
    assert awaited(table) == [(("ann",), "Ann", "stack chips or end the test")]
    table.do(ANN, k.Stack(side="agent", chips=5))
    assert awaited(table, GM) == [(("ann",), "Ann", "choose what the break does")]
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    assert awaited(table) == [(("ann",), "Ann", "seal the risk")]  # round 2: the test ended with the hand
    table.do(ANN, Declare(participant="vera", payload=k.Risk(all_in=False)))
    table.roll({**dict.fromkeys(FIVE, 5), **dict.fromkeys(D8, 1)})
    table.do(GM, k.Stack(side="narrator", chips=5))
    assert awaited(table) == [(("ann",), "Ann", "choose what the glitch does")]
    table.do(ANN, k.ChooseGlitch(choice="hurt"))
    assert awaited(table, ANN) == [(("gm",), "the GM", "pick the narrator's option")]
    table.do(GM, k.NarratorOption(option="condition", label="Shaken"))


def test_an_unplayed_agent_is_the_gm_s_and_a_played_one_rolls_with_server_dice() -> None:
    gm_only = Table(msgspec.structs.replace(scene(dice="server"), seats=[Seat("gm", "gm")]))  # nobody plays Vera
    gm_only.do(GM, contest(level=3, challenge=2, consequence=2))
    assert awaited(gm_only) == [(("gm",), "the GM", "seal the risk")]
    table = Table(named(scene(dice="server")))
    table.do(GM, contest(level=3, challenge=2, consequence=2))  # drawn at random at once
    assert awaited(table) == [(("ann",), "Ann", "seal the risk")]
    table.do(ANN, Declare(participant="vera", payload=k.Risk(all_in=True)))
    assert awaited(table) == [(("ann",), "Ann", "roll round 1")]
    table.do(ANN, k.Roll())


def test_a_loss_at_zero_fortune_waits_for_the_player_s_aftermath() -> None:
    table = Table(named(scene()))
    table.start(["d8-1"], FIVE, consequence=1)
    table.risk()
    table.roll({"d8-1": 5, **dict.fromkeys(FIVE, 1)})
    table.do(GM, k.Stack(side="narrator", chips=5))
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    table.do(GM, k.NarratorOption(option="peril"))
    assert table.rules.aftermath_due
    assert awaited(table) == [(("ann",), "Ann", "choose a Blackout or a Moment of Madness")]
    table.do(ANN, k.ChooseAftermath(aftermath="madness"))
    assert awaited(table) == [(("gm",), "the GM", "set up the next contest or end the scene")]
