"""What a scored sequence waits for, phase by phase, as each page says it: the GM framing a round, the sealed
tactics, the roll (either contestant's player, or the GM), the story point answers, the conclusion. Each
awaited seat then plays the command the sequence waits for, and the sequence accepts it."""

from __future__ import annotations

import msgspec

from protocol.events import Conclude, Declare
from protocol.rulesets import scored as s
from tests.engine.table import SPECTATOR
from tests.rules.scored.table import ANN, BOB, GM, Table, heroes
from tests.rules.waiting import awaited, named

ANSWER = "spend a story point or let the result stand"


def test_a_round_waits_for_the_gm_the_tactics_the_roll_and_the_answers() -> None:
    table = Table(named(heroes(story_points=1, players_type_faces=True)))
    assert awaited(table, SPECTATOR) == [(("gm",), "the GM", "start round 1")]
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    assert awaited(table, BOB) == [(("ann", "gm"), "Ann and the GM", "seal a tactic")]
    table.do(GM, Declare(participant="ogre", payload=s.Tactic(tactic="defensive")))
    assert awaited(table) == [(("ann",), "Ann", "seal a tactic")]
    table.do(ANN, Declare(participant="aria", payload=s.Tactic(tactic="gambit")))
    assert awaited(table) == [(("ann", "gm"), "Ann or the GM", "roll round 1")]  # either may roll it
    table.do(ANN, s.Roll(faces=[15, 10]))
    assert awaited(table) == [(("ann",), "Ann", ANSWER)]  # Aria's player answers; the GM's Ogre has none
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    assert awaited(table) == [(("gm",), "the GM", "start round 2")]


def test_the_gm_types_physical_dice_and_concludes_a_decided_sequence() -> None:
    table = Table(named(heroes()))
    table.do(GM, s.StartRound(initiative="bors", responder="ogre"))
    table.do(BOB, Declare(participant="bors", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    assert awaited(table, BOB) == [(("gm",), "the GM", "roll round 1")]
    table.do(GM, s.Roll(faces=[15, 16]))
    table.stand()  # Bors holds no story point: his player lets it stand
    table.do(GM, s.Adjust(contestant="ogre", delta=5, reason="the bridge gives way"))
    assert table.rules.phase == "decided"
    assert awaited(table, ANN) == [(("gm",), "the GM", "conclude the sequence")]
    table.do(GM, Conclude())
    assert awaited(table) == []


def test_with_when_it_matters_only_the_gm_and_its_player_are_told_who_may_spend_a_story_point() -> None:
    request = named(heroes(story_points=1))
    setup = request.setup
    assert isinstance(setup, s.ScoredSetup)
    table = Table(
        msgspec.structs.replace(request, setup=msgspec.structs.replace(setup, story_point_window="when_it_matters"))
    )
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    table.do(GM, s.Roll(faces=[10, 15]))
    assert awaited(table) == [(("ann",), "Ann", ANSWER)]
    assert awaited(table, ANN) == [(("ann",), "Ann", ANSWER)]
    for unentitled in (BOB, SPECTATOR):
        assert awaited(table, unentitled) == [((), "someone", ANSWER)]
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
