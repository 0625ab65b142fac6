"""Once a QuestWorlds roll is applied its dice stay in every viewer's view (``last_roll``), so a page still
draws them: the faces, the levels after masteries and hero points, whose die won, for exchanges and for the
simple contests inside an extended contest, in a Hero Wars contest and in a scored sequence. The same for
everyone: the faces and levels were public in the exchange, who won in the log."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from protocol.common import QuestRoll, RolledSide
from protocol.events import Declare
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import scored as s
from server.engine.views import contest_view, viewer_for
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table, duel
from tests.rules.extended.group import attack, declare, raid
from tests.rules.herowars.test_contest import contest as ford
from tests.rules.scored.table import Table as ScoredTable


def _views(table: Any) -> list[Any]:
    """The rules' part of the view of the GM, Ann, Bob (where seated) and a spectator."""
    seats = table.contest.created.seats
    actors = [GM, *(a for a in (ANN, BOB) if any(seat.id == a.principal for seat in seats)), SPECTATOR]
    rules = table.ruleset if isinstance(table, Table) else table.rules  # the engine's table, or the driver
    return [contest_view(rules, table.contest, viewer_for(a, seats)).rules for a in actors]


def _last_roll(table: Any) -> QuestRoll | None:
    """The last roll every viewer sees (the same for all of them)."""
    rolls = [view.last_roll for view in _views(table)]
    assert all(roll == rolls[0] for roll in rolls), rolls
    return rolls[0]


def test_a_duel_exchange_keeps_its_dice_once_applied_with_the_hero_point_that_raised_one() -> None:
    table = Table(duel())
    table.declare(x.Intent(action="lunge", bid=4), x.Intent(action="parry"))
    assert _last_roll(table) is None
    table.do(GM, x.Roll(faces=[2, 15]))  # Aria (15) a Success, the orc (12) a Failure
    assert table.rules.exchange is not None and _last_roll(table) is None  # drawn from the exchange meanwhile
    table.do(ANN, x.SpendHeroPoint(contestant="aria"))
    assert table.rules.exchange is None
    assert _last_roll(table) == QuestRoll(
        kind="exchange",
        exchange=1,
        sides=[RolledSide("aria", 2, "Critical", hero_point=True), RolledSide("orc", 15, "Failure")],
        won=0,
    )


def test_a_tie_marks_no_die() -> None:
    table = Table(duel(aria="15", orc="15", hero_points=0))
    table.declare()
    table.do(GM, x.Roll(faces=[7, 7]))
    table.stand()
    roll = _last_roll(table)
    assert roll is not None and [d.face for d in roll.sides] == [7, 7] and roll.won is None


def test_the_simple_contests_of_a_group_contest_keep_their_dice() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("orc"),
            "bran": attack("wolf"),
            "orc": attack("aria"),
            "wolf": attack("bran"),
            "shaman": attack("aria"),
        },
    )
    # Aria 15 rolls 16 (Failure), the orc's 2 a Success: a Minor Defeat, the orc's die won
    table.do(GM, x.Disengage(contestant="aria", opponent="orc", faces=[16, 2]))
    assert _last_roll(table) == QuestRoll(
        kind="disengage",
        exchange=0,
        sides=[RolledSide("aria", 16, "Failure"), RolledSide("orc", 2, "Success")],
        won=1,
        result="Minor Defeat",
    )
    # Bran lends 6 against a resistance of 6: his 3 a Success, the resistance's 10 a Failure
    table.do(GM, x.Lend(lender="bran", target="aria", ap=6, faces=[3, 10]))
    assert _last_roll(table) == QuestRoll(
        kind="loan",
        exchange=0,
        sides=[RolledSide("bran", 3, "Success"), RolledSide(None, 10, "Failure")],
        won=0,
        result="Minor Victory",
    )
    table.do(GM, x.Gift(giver="Old Mags", rating="14", recipient="aria", opponent="orc", bid=5, faces=[4, 1]))
    roll = _last_roll(table)
    assert roll is not None and roll.kind == "gift" and roll.won == 1
    assert roll.sides[0] == RolledSide(None, 4, "Success", outsider="Old Mags")


def test_a_hero_wars_exchange_keeps_its_dice_once_applied() -> None:
    table = ford()
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    table.do(GM, Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)))
    table.do(GM, h.Roll(faces=[6, 12]))
    table.do(ANN, h.PassHeroPoint(contestant="erik"))
    assert _last_roll(table) == QuestRoll(
        kind="exchange",
        exchange=1,
        sides=[RolledSide("erik", 6, "Success"), RolledSide("jonas", 12, "Success")],
        won=0,
    )


def test_a_scored_round_and_an_assist_keep_their_dice_once_resolved() -> None:
    table = ScoredTable()
    resolved = table.round("aria", "ogre", [15, 10])
    assert resolved is not None
    roll = [view.last_roll for view in _views(table)]
    assert all(r == roll[0] for r in roll)
    first = roll[0]
    assert first is not None and (first.kind, first.round, first.won) == ("round", 1, 0)
    assert (first.first.contestant, first.first.face, first.second.contestant, first.second.face) == (
        "aria",
        15,
        "ogre",
        10,
    )
    table.adjust("cato", 2)
    table.do(GM, s.Assist(helper="dina", beneficiary="cato", faces=[20, 1]))  # the resistance's die wins
    table.stand()
    assist = _views(table)[-1].last_roll
    assert assist is not None and assist.kind == "assist" and assist.target == "cato"
    assert (assist.second.contestant, assist.won) == (None, 1)


def test_a_state_stored_before_it_kept_the_last_roll_is_not_read_from_a_snapshot() -> None:
    """A snapshot is a cache: one written before the state kept its last roll fails to decode (the service then
    folds the contest again from its log) rather than showing no dice where the log has some."""
    for table, field in ((Table(duel()), "last_roll"), (ford(), "last_roll"), (ScoredTable(), "last_roll")):
        state = table.contest.rules
        stored = msgspec.json.decode(msgspec.json.encode(state))
        assert msgspec.json.decode(msgspec.json.encode(stored), type=type(state)) == state
        del stored[field]
        with pytest.raises(msgspec.ValidationError, match=field):
            msgspec.json.decode(msgspec.json.encode(stored), type=type(state))
