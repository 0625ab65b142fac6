"""Hero Wars contests played through the engine: the examples at the table, ties the GM settles, hero
points, the end of the contest and its outcome."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol.codec import decode_untrusted
from protocol.common import Actor, Seat
from protocol.errors import Refused
from protocol.events import CreateContest, Declare
from protocol.messages import ClientMessage
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from server.rulesets import ruleset
from tests.conformance.driver import Driver

GM = Actor("gm", "gm")
ANN = Actor("ann", "player")


def contest(erik: str = "15", jonas: str = "15", cap_3x: bool = False, hero_points: int = 0, **extra: Any) -> Driver:
    """Erik (Ann's hero) against Jonas, whom the GM runs; physical dice."""
    return Driver(
        ruleset("herowars"),
        CreateContest(
            ruleset="herowars",
            setup=h.HerowarsSetup(
                prize="the ford",
                contestants=[
                    h.Contestant(
                        id="erik", name="Erik", ability="Sword", rating=erik, hero_points=hero_points, **extra
                    ),
                    h.Contestant(id="jonas", name="Jonas", ability="Spear", rating=jonas),
                ],
                cap_3x=cap_3x,
            ),
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["erik"])],
            dice="physical",
        ),
    )


def erik_bids(table: Driver, bid: int = 10) -> None:
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=bid)))
    table.do(GM, Declare(participant="jonas", payload=h.Intent(action="hold the ford", bid=3)))


def ap(table: Driver) -> dict[str, int]:
    return {c: f.ap for c, f in table.contest.rules.fighters.items()}


def stands(table: Driver) -> None:
    """Ann lets Erik's result stand: the answer every roll with her hero in it waits for."""
    table.do(ANN, h.PassHeroPoint(contestant="erik"))


def refused(table: Driver, actor: Actor, command: Any) -> str:
    before = table.contest
    with pytest.raises(Refused) as exc:
        table.do(actor, command)
    assert table.contest is before
    return exc.value.code


def test_erik_wins_with_a_success_and_jonas_loses_ten_with_a_higher_success() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[6, 12]))
    stands(table)
    assert ap(table) == {"erik": 15, "jonas": 5}
    last = table.contest.rules.last
    assert (last.case, last.winner, last.lost, last.gained) == ("win", "erik", {"jonas": 10}, 0)
    assert table.contest.rules.actor == "jonas"  # Jonas acts next in the round


@pytest.mark.parametrize(
    ("cap", "erik_ap", "level", "consequence", "benefit"),
    [(False, -25, "Major", "Injured", "Invigorated"), (True, -15, "Minor", "Impaired", "Pumped")],
)
def test_erik_fumbles_and_loses_forty_or_thirty_with_the_cap(
    cap: bool, erik_ap: int, level: str, consequence: str, benefit: str
) -> None:
    table = contest(cap_3x=cap)
    erik_bids(table)
    table.do(GM, h.Roll(faces=[20, 8]))
    stands(table)
    assert ap(table) == {"erik": erik_ap, "jonas": 15}
    outcome = table.contest.rules.outcome
    assert outcome == h.ContestDecided(
        winner="jonas", defeated=[h.Defeat("erik", erik_ap, level, consequence)], benefit=benefit
    )
    assert refused(table, GM, h.Roll(faces=[2, 3])) == "rules/out_of_phase"


@pytest.mark.parametrize("cap", [False, True])
def test_erik_wins_with_a_critical_and_jonas_fails_a_transfer(cap: bool) -> None:
    table = contest(cap_3x=cap)
    erik_bids(table, bid=5)
    table.do(GM, h.Roll(faces=[1, 17]))  # double bid, full loss, transferred
    stands(table)
    assert ap(table) == {"erik": 25, "jonas": 5}
    assert table.contest.rules.last.case == "transfer"


def test_both_critical_is_a_tie_the_gm_settles_by_naming_the_result() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[1, 1]))
    stands(table)
    assert table.contest.rules.phase == "tied"
    assert ap(table) == {"erik": 15, "jonas": 15}
    assert refused(table, GM, h.Roll(faces=[2, 3])) == "rules/out_of_phase"
    assert refused(table, ANN, h.SettleTie(winner="erik", loss=5)) == "auth/forbidden"
    assert refused(table, GM, h.SettleTie(winner="erik", loss=41)) == "rules/bad_tie"  # above 4 × 10
    assert refused(table, GM, h.SettleTie(winner="nobody", loss=5)) == "rules/bad_tie"
    assert refused(table, GM, h.SettleTie(winner=None, loss=5)) == "rules/bad_tie"
    table.do(GM, h.SettleTie(winner="erik", loss=5, transfer=True, reason="Erik's charge carries the ford"))
    assert ap(table) == {"erik": 20, "jonas": 10}
    assert table.contest.rules.last.reason == "Erik's charge carries the ford"
    assert table.contest.rules.actor == "jonas"


def test_a_tie_settled_with_no_winner_changes_no_ap() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[7, 7]))
    stands(table)
    table.do(GM, h.SettleTie(winner=None, reason="they circle each other"))
    assert ap(table) == {"erik": 15, "jonas": 15}


def test_both_failures_with_masteries_are_both_successes_and_the_lower_roll_wins() -> None:
    table = contest(erik="5W", jonas="3W")  # TN 5 and 3, one mastery each: they cancel
    erik_bids(table)
    table.do(GM, h.Roll(faces=[18, 17]))
    stands(table)
    assert ap(table) == {"erik": 15, "jonas": 23}  # Jonas's 17 beats Erik's 18: Erik loses 10 (20 halved)


def test_both_failures_without_masteries_cost_both_the_bid() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[17, 18]))
    stands(table)
    assert ap(table) == {"erik": 5, "jonas": 5}


def test_both_fall_together_and_each_takes_its_own_outcome() -> None:
    table = contest(erik="5", jonas="5")
    erik_bids(table, bid=3)
    table.do(GM, h.Roll(faces=[20, 20]))  # both Fumble: both lose double the bid
    stands(table)
    outcome = table.contest.rules.outcome
    assert outcome == h.ContestDecided(
        winner=None,
        defeated=[h.Defeat("erik", -1, "Marginal", "Hurt"), h.Defeat("jonas", -1, "Marginal", "Hurt")],
        benefit=None,
    )


def test_the_edge_is_added_to_the_bid_when_jonas_pays() -> None:
    table = contest(edge=2)
    erik_bids(table, bid=4)
    table.do(GM, h.Roll(faces=[3, 17]))  # Success against Failure: (4 + 2) × 2
    stands(table)
    assert ap(table) == {"erik": 15, "jonas": 3}


def test_a_hero_point_bumps_erik_up_after_the_dice() -> None:
    table = contest(hero_points=1)
    erik_bids(table)
    table.do(GM, h.Roll(faces=[17, 12]))  # Failure against Success: Erik would lose 20
    assert table.contest.rules.phase == "rolled"
    assert refused(table, GM, h.SpendHeroPoint(contestant="erik")) == "auth/not_your_seat"
    table.do(ANN, h.SpendHeroPoint(contestant="erik"))  # now Success (17) against Success (12): Jonas wins
    assert ap(table) == {"erik": 5, "jonas": 15}
    assert table.contest.rules.fighters["erik"].hero_points == 0


def test_a_gm_adjustment_that_lifts_the_loser_resumes_the_contest() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[20, 8]))
    stands(table)
    assert table.contest.rules.phase == "decided"
    table.do(GM, h.Adjust(contestant="erik", delta=30, reason="the river god intervenes"))
    rules = table.contest.rules
    # Erik fell on his own exchange: the round goes on with Jonas's
    assert (rules.phase, rules.round, rules.actor, rules.outcome) == ("ready", 1, "jonas", None)


def test_bids_are_checked_when_declared() -> None:
    table = contest()
    bad = Declare(participant="erik", payload=h.Intent(bid=16))  # above 15, the larger of AP and starting AP
    assert refused(table, ANN, bad) == "rules/bid_too_high"
    assert refused(table, ANN, Declare(participant="erik", payload=h.Intent(bid=0))) == "rules/bid_too_low"
    assert refused(table, GM, Declare(participant="jonas", payload=h.Intent(bid=16))) == "rules/bid_too_high"


def test_another_rulesets_command_or_declaration_is_refused() -> None:
    table = contest()
    assert refused(table, ANN, Declare(participant="erik", payload=x.Intent(bid=3))) == "contest/foreign_ruleset"
    erik_bids(table)
    assert refused(table, GM, x.Roll(faces=[2, 3])) == "contest/foreign_ruleset"


@pytest.mark.parametrize(
    ("erik", "code"),
    [("25", "rules/bad_rating"), ("0", "contest/bad_setup"), ("W", "rules/bad_rating")],
)
def test_a_bad_setup_is_refused(erik: str, code: str) -> None:
    with pytest.raises(Refused) as exc:
        contest(erik=erik)
    assert exc.value.code == code


@pytest.mark.parametrize(
    "extra",
    [{"modifier": 1}, {"augment": 2010, "modifier": 1}, {"modifier": -2021, "followers_ap": 10**6}],
)
def test_a_setup_no_roll_could_be_made_with_is_refused(extra: dict[str, int]) -> None:
    # 20W100 is the highest rating that can be written: one more would be 1W101, which no roll can read
    with pytest.raises(Refused) as exc:
        contest(erik="20W100" if "augment" not in extra else "10", **extra)
    assert exc.value.code == "contest/bad_setup"


@pytest.mark.parametrize("field", ["modifier", "augment", "followers_ap", "edge", "hero_points"])
def test_a_setup_number_beyond_its_bound_is_refused_when_decoded(field: str) -> None:
    erik = {"id": "erik", "name": "Erik", "ability": "Sword", "rating": "15", field: 10**30}
    jonas = {"id": "jonas", "name": "Jonas", "ability": "Spear", "rating": "15"}
    setup = {"type": "herowars.setup", "prize": "the ford", "contestants": [erik, jonas]}
    frame = {"type": "create", "id": "c1", "contest": {"ruleset": "herowars", "setup": setup, "seats": []}}
    with pytest.raises(Refused) as exc:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    assert exc.value.code == "protocol/bad_field" and field in exc.value.message


def test_starting_ap_is_the_value_with_modifiers_augments_and_followers() -> None:
    table = contest(erik="5W", modifier=-3, augment=2, followers_ap=4)
    erik = table.contest.rules.fighters["erik"]
    assert (erik.rating, erik.starting_ap, erik.ap) == ("4W", 28, 28)


def test_a_hero_point_raises_a_side_without_a_die_to_success_but_its_roll_is_the_worse() -> None:
    table = contest(erik="0", followers_ap=10, hero_points=1)  # Erik rolls no die; his followers give 10 AP
    erik_bids(table, bid=3)
    table.do(GM, h.Roll(faces=[None, 12]))
    table.do(ANN, h.SpendHeroPoint(contestant="erik"))  # Failure to Success, still no die against a 12
    assert ap(table) == {"erik": 7, "jonas": 15}  # Jonas wins Success against Success: 3 doubled, halved


def test_only_the_gm_and_the_heros_player_see_who_may_still_spend_a_hero_point() -> None:
    """Who may still spend tells who holds hero points, which only the GM and the controller may know."""
    from server.engine.ruleset import Viewer

    table = contest(hero_points=1)
    erik_bids(table)
    table.do(GM, h.Roll(faces=[17, 12]))
    pending = {
        name: table.rules.view(table.contest.rules, viewer).exchange.hero_points_pending
        for name, viewer in {
            "gm": Viewer("gm", "gm"),
            "ann": Viewer("ann", "player", frozenset({"erik"})),
            "spectator": Viewer("~spectator", "spectator"),
        }.items()
    }
    assert pending == {"gm": ["erik"], "ann": ["erik"], "spectator": []}
