"""What a Hero Wars contest waits for, phase by phase, as each page says it: the sealing of intents, each
exchange's actor (the GM typing physical dice), the hero point answers, a tie the GM settles, the conclusion.
Each awaited seat then plays the command the contest waits for, and the contest accepts it."""

from __future__ import annotations

import msgspec

from protocol.events import Conclude, Declare
from protocol.rulesets import herowars as h
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table
from tests.net.duel import ford
from tests.rules.waiting import awaited, named

ANSWER = "let the roll stand or spend a hero point"


def test_a_duel_waits_for_the_seal_the_roll_the_answers_and_the_gm() -> None:
    table = Table(named(ford()))  # Ann's Erik (a hero point) against Bob's Jonas; physical dice
    assert awaited(table, SPECTATOR) == [(("ann", "bob"), "Ann and Bob", "seal an intent")]
    table.do(BOB, Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)))
    assert awaited(table, ANN) == [(("ann",), "Ann", "seal an intent")]
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    assert awaited(table) == [(("gm",), "the GM", "roll exchange 1")]  # the GM types the faces
    table.do(GM, h.Roll(faces=[1, 1]))
    assert awaited(table) == [(("ann", "bob"), "Ann and Bob", ANSWER)]
    table.do(ANN, h.PassHeroPoint(contestant="erik"))
    table.do(BOB, h.PassHeroPoint(contestant="jonas"))
    assert table.rules.phase == "tied"
    assert awaited(table, ANN) == [(("gm",), "the GM", "settle the tie of exchange 1")]
    table.do(GM, h.SettleTie(winner=None, reason="they circle"))
    assert awaited(table) == [(("gm",), "the GM", "roll exchange 2")]
    table.do(GM, h.Adjust(contestant="jonas", delta=-20, reason="he slips"))
    assert awaited(table, BOB) == [(("gm",), "the GM", "conclude the contest")]
    table.do(GM, Conclude())
    assert awaited(table) == []


def test_players_typing_their_faces_roll_their_own_exchange() -> None:
    request = named(ford())
    setup = msgspec.structs.replace(request.setup, players_type_faces=True)
    table = Table(msgspec.structs.replace(request, setup=setup))
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    table.do(BOB, Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)))
    assert awaited(table) == [(("ann",), "Ann", "roll exchange 1")]
    table.do(ANN, h.Roll(faces=[5, 15]))


def test_with_when_it_matters_a_spectator_is_not_told_whose_hero_point_the_roll_waits_for() -> None:
    table = Table(named(ford(window="when_it_matters")))
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    table.do(BOB, Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)))
    table.do(GM, h.Roll(faces=[15, 5]))  # Erik fails, Jonas succeeds: Erik's hero point would change it
    assert table.rules.exchange.waiting == ["erik"]
    assert awaited(table) == [(("ann",), "Ann", ANSWER)]
    assert awaited(table, ANN) == [(("ann",), "Ann", ANSWER)]
    for unentitled in (BOB, SPECTATOR):
        assert awaited(table, unentitled) == [((), "someone", ANSWER)]
    table.do(ANN, h.PassHeroPoint(contestant="erik"))
