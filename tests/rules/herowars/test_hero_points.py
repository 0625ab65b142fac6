"""Hero Wars: a hero point is offered only when a step up could change the AP the exchange moves (or turn it
into a tie the GM settles), never for a change of label that moves nothing."""

from __future__ import annotations

from msgspec.structs import replace

from protocol.common import Actor, Seat
from protocol.events import Declare
from protocol.rulesets import herowars as h
from server.rulesets import ruleset
from tests.conformance.driver import Driver
from tests.rules.herowars.test_contest import ANN, GM, ap, contest, erik_bids, refused, stands


def test_no_hero_point_when_a_handicap_cuts_the_stake_to_0_and_erik_already_wins() -> None:
    table = contest(hero_points=1, edge=-3)
    erik_bids(table, bid=3)  # 3 − 3: Jonas pays nothing, whatever Erik's level
    table.do(GM, h.Roll(faces=[3, 17]))  # Success against Failure; a Critical would transfer 0
    assert table.contest.rules.exchange.eligible == []
    assert refused(table, ANN, h.SpendHeroPoint(contestant="erik")) == "rules/hero_point_no_effect"
    stands(table)
    assert ap(table) == {"erik": 15, "jonas": 15}
    assert table.contest.rules.fighters["erik"].hero_points == 1


def test_a_hero_point_is_still_offered_when_erik_loses_with_the_stake_cut_to_0() -> None:
    table = contest(hero_points=1, edge=-3)
    erik_bids(table, bid=3)  # Erik pays the plain bid: his handicap never lowers it
    table.do(GM, h.Roll(faces=[17, 12]))  # Failure against Success: Erik would lose 6
    assert table.contest.rules.exchange.eligible == ["erik"]
    table.do(ANN, h.SpendHeroPoint(contestant="erik"))  # Success (17) against Success (12): Jonas wins, halved
    assert ap(table) == {"erik": 12, "jonas": 15}


def test_no_hero_point_for_a_step_that_changes_the_winner_but_no_loss() -> None:
    """Failure against Fumble and both Failure cost Erik the same 3 and Jonas the same 0 when Erik's handicap
    cuts what Jonas pays to 0: Jonas's hero point would only take Erik's win away."""
    bob = Actor("bob", "player")
    request = contest().request
    assert isinstance(request.setup, h.HerowarsSetup)
    erik, jonas = request.setup.contestants
    setup = replace(request.setup, contestants=[replace(erik, edge=-3, hero_points=1), replace(jonas, hero_points=1)])
    table = Driver(
        ruleset("herowars"),
        replace(request, setup=setup, seats=[*request.seats, Seat("bob", "player", ["jonas"])]),
    )
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=3)))
    table.do(bob, Declare(participant="jonas", payload=h.Intent(action="hold the ford", bid=3)))
    table.do(GM, h.Roll(faces=[17, 20]))  # Failure against Fumble: Erik loses 3, Jonas 2 × 0
    assert table.contest.rules.exchange.eligible == ["erik"]  # Erik's Success would cost him nothing
    assert refused(table, bob, h.SpendHeroPoint(contestant="jonas")) == "rules/hero_point_no_effect"
    table.do(bob, h.PassHeroPoint(contestant="jonas"))
    stands(table)
    assert ap(table) == {"erik": 12, "jonas": 15}
