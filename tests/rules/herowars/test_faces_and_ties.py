"""What a client writer reads in docs/rules/herowars.md, checked: physical faces go to the actor, then the
defender; the tie limit's modified bid is that of the side the GM's named winner makes pay."""

from __future__ import annotations

import pytest

from protocol.rulesets import herowars as h
from tests.rules.herowars.test_contest import GM, ap, contest, erik_bids, refused, stands


def test_faces_go_to_the_actor_then_the_defender_whoever_acts() -> None:
    table = contest()
    erik_bids(table, bid=2)
    table.do(GM, h.Roll(faces=[3, 17]))  # Erik's exchange: Erik's face first
    exchange = table.contest.rules.exchange
    assert (exchange.actor, exchange.actor_face, exchange.defender, exchange.defender_face) == ("erik", 3, "jonas", 17)
    stands(table)
    table.do(GM, h.Roll(faces=[4, 18]))  # Jonas's exchange: Jonas's face first
    exchange = table.contest.rules.exchange
    assert (exchange.actor, exchange.actor_face, exchange.defender, exchange.defender_face) == ("jonas", 4, "erik", 18)
    stands(table)
    assert ap(table) == {"erik": 15 - 6, "jonas": 15 - 4}  # each won its own exchange with a Success


@pytest.mark.parametrize(("winner", "most"), [("erik", 4 * (10 + 2)), ("jonas", 4 * 10)])
def test_the_tie_limit_is_four_times_the_bid_the_named_winners_opponent_pays(winner: str, most: int) -> None:
    """Erik's edge 2 counts when Jonas pays (Erik named the winner), not when Erik pays."""
    table = contest(edge=2)
    erik_bids(table)
    table.do(GM, h.Roll(faces=[1, 1]))  # both Critical: a tie
    stands(table)
    assert refused(table, GM, h.SettleTie(winner=winner, loss=most + 1)) == "rules/bad_tie"
    table.do(GM, h.SettleTie(winner=winner, loss=most))


def test_with_the_cap_the_tie_limit_is_three_times_that_bid() -> None:
    table = contest(edge=2, cap_3x=True)
    erik_bids(table)
    table.do(GM, h.Roll(faces=[1, 1]))
    stands(table)
    assert refused(table, GM, h.SettleTie(winner="erik", loss=3 * 12 + 1)) == "rules/bad_tie"
    assert refused(table, GM, h.SettleTie(winner="jonas", loss=3 * 10 + 1)) == "rules/bad_tie"
    table.do(GM, h.SettleTie(winner="jonas", loss=30))
    assert ap(table) == {"erik": -15, "jonas": 15}
