"""A GM adjustment that decides a Hero Wars contest and then undoes it: the contest goes on where it stopped,
the same round and turn, the GM's order and the sealed declarations kept."""

from __future__ import annotations

from protocol.events import Declare
from protocol.rulesets import herowars as h
from tests.rules.herowars.test_contest import ANN, GM, ap, contest, erik_bids, stands


def test_declarations_survive_an_adjustment_that_decided_then_resumed_the_contest() -> None:
    table = contest()
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=7)))
    table.do(GM, h.Adjust(contestant="jonas", delta=-15, reason="Jonas slips on the stones"))
    assert table.contest.rules.phase == "decided"
    table.do(GM, h.Adjust(contestant="jonas", delta=5, reason="no, he keeps his footing"))
    rules = table.contest.rules
    assert rules.phase == "declaring" and rules.round == 1 and rules.outcome is None
    table.do(GM, Declare(participant="jonas", payload=h.Intent(bid=2)))  # the same window: it reveals both
    rules = table.contest.rules
    assert rules.phase == "ready" and rules.intents["erik"] == h.Intent(action="charge", bid=7)


def test_a_decision_in_mid_round_resumes_at_the_next_turn_in_the_gms_order() -> None:
    table = contest()
    table.do(GM, h.SetOrder(order=["jonas", "erik"]))
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=4)))
    table.do(GM, Declare(participant="jonas", payload=h.Intent(action="thrust", bid=8)))
    table.do(GM, h.Roll(faces=[6, 17]))  # Jonas's Success against Erik's Failure: Erik loses 2 × 8, to -1
    stands(table)
    assert table.contest.rules.phase == "decided" and ap(table)["erik"] == -1
    table.do(GM, h.Adjust(contestant="erik", delta=3, reason="the blow only grazed him"))
    rules = table.contest.rules
    assert (rules.phase, rules.round, rules.order, rules.actor) == ("ready", 1, ["jonas", "erik"], "erik")
    table.do(GM, h.Roll(faces=[6, 17]))  # Erik still has his exchange this round: Jonas loses 2 × 4
    stands(table)
    assert ap(table) == {"erik": 2, "jonas": 7}
    rules = table.contest.rules
    assert (rules.phase, rules.round, rules.order) == ("declaring", 2, ["jonas", "erik"])


def test_a_decision_on_the_rounds_last_exchange_resumes_with_the_next_round_in_the_gms_order() -> None:
    table = contest()
    table.do(GM, h.SetOrder(order=["jonas", "erik"]))
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=8)))
    table.do(GM, Declare(participant="jonas", payload=h.Intent(action="wait", bid=1)))
    table.do(GM, h.Roll(faces=[8, 8]))  # equal Successes: a tie the GM settles as nothing
    stands(table)
    table.do(GM, h.SettleTie(winner=None, reason="they circle"))
    table.do(GM, h.Roll(faces=[6, 17]))  # Erik's Success against Jonas's Failure: Jonas loses 2 × 8, to -1
    stands(table)
    assert table.contest.rules.phase == "decided"
    table.do(GM, h.Adjust(contestant="jonas", delta=6, reason="his shield took it"))
    rules = table.contest.rules
    assert (rules.phase, rules.round, rules.order, rules.outcome) == ("declaring", 2, ["jonas", "erik"], None)


def test_an_adjustment_during_a_rolled_or_tied_exchange_that_decides_then_resumes_lets_the_actor_roll_again() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[6, 12]))  # the exchange waits for Ann's answer
    assert table.contest.rules.phase == "rolled"
    table.do(GM, h.Adjust(contestant="jonas", delta=-15, reason="Jonas faints"))
    table.do(GM, h.Adjust(contestant="jonas", delta=15, reason="he was feigning"))
    rules = table.contest.rules
    assert (rules.phase, rules.round, rules.actor, rules.exchange) == ("ready", 1, "erik", None)
    table.do(GM, h.Roll(faces=[8, 8]))  # equal Successes: a tie for the GM
    stands(table)
    assert table.contest.rules.phase == "tied"
    table.do(GM, h.Adjust(contestant="erik", delta=-15, reason="Erik faints"))
    table.do(GM, h.Adjust(contestant="erik", delta=15, reason="he was feigning too"))
    rules = table.contest.rules
    assert (rules.phase, rules.round, rules.actor, rules.exchange) == ("ready", 1, "erik", None)
    table.do(GM, h.Roll(faces=[6, 12]))
    stands(table)
    assert ap(table) == {"erik": 15, "jonas": 5}
