"""The Hero Wars AP chart: the seed's first example on the chart, Erik's AP hidden from a spectator until it
moves, and a GM adjustment between exchanges as one point of its own."""

from __future__ import annotations

from protocol.rulesets import herowars as h
from server.engine.ruleset import Viewer
from server.rules.herowars.view import view
from tests.rules.herowars.test_contest import GM, contest, erik_bids, stands


def test_the_chart_follows_the_first_example_and_hides_what_the_spectator_may_not_see() -> None:
    table = contest()
    erik_bids(table)
    table.do(GM, h.Roll(faces=[6, 12]))  # Erik wins: Jonas loses 10 (15 → 5), Erik's AP does not move
    stands(table)
    table.do(GM, h.Adjust(contestant="erik", delta=-2, reason="the current drags him"))
    spectator = view(table.contest.rules, Viewer("~spectator", "spectator")).chart
    assert (spectator.exchange, spectator.adjusted) == ([0, 1, 1], [False, False, True])
    assert spectator.ap == {"erik": [None, None, 13], "jonas": [None, 5, 5]}
    gm = view(table.contest.rules, Viewer("gm", "gm")).chart
    assert gm.ap == {"erik": [15, 15, 13], "jonas": [15, 5, 5]}
    ann = view(table.contest.rules, Viewer("ann", "player", frozenset({"erik"}))).chart
    assert ann.ap == {"erik": [15, 15, 13], "jonas": [None, 5, 5]}
