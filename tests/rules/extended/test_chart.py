"""The AP chart in the view: every exchange since the start, hidden AP hidden point by point, bounded."""

from __future__ import annotations

from typing import Any

from protocol.events import Undo
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.view import view
from server.rules.questworlds.chart import CHART_POINTS
from tests.engine.table import BOB, GM, Table, duel

SPECTATOR = Viewer("~spectator", "spectator")
ANN = Viewer("ann", "player", frozenset({"aria"}))
BOB_VIEW = Viewer("bob", "player", frozenset({"orc"}))
GM_VIEW = Viewer("gm", "gm")


def chart(table: Table, viewer: Viewer) -> list[tuple[int, bool, dict[str, Any]]]:
    """The chart's points: (exchange, adjusted, AP by contestant)."""
    seen = view(table.rules, viewer).chart
    assert all(len(column) == len(seen.exchange) for column in [seen.adjusted, *seen.ap.values()])
    return [
        (exchange, seen.adjusted[i], {c: column[i] for c, column in seen.ap.items()})
        for i, exchange in enumerate(seen.exchange)
    ]


def test_the_chart_starts_with_the_starting_ap_that_only_the_gm_and_each_controller_see() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    assert chart(table, GM_VIEW) == [(0, False, {"aria": 15, "orc": 12})]
    assert chart(table, ANN) == [(0, False, {"aria": 15, "orc": None})]
    assert chart(table, BOB_VIEW) == [(0, False, {"aria": None, "orc": 12})]
    assert chart(table, SPECTATOR) == [(0, False, {"aria": None, "orc": None})]


def test_each_exchange_adds_a_point_and_an_ap_stays_hidden_on_it_until_it_has_changed() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    table.declare(x.Intent(bid=3), x.Intent(bid=2), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria wins: the orc loses AP, Aria's stays as it was
    table.stand()
    orc_after_one = table.ap("orc")
    assert orc_after_one < 12 and table.ap("aria") == 15
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc's exchange: it wins, Aria loses AP
    table.stand()
    aria_after_two = table.ap("aria")
    assert aria_after_two < 15
    assert chart(table, GM_VIEW) == [
        (0, False, {"aria": 15, "orc": 12}),
        (1, False, {"aria": 15, "orc": orc_after_one}),
        (2, False, {"aria": aria_after_two, "orc": orc_after_one}),
    ]
    # Aria's AP was hidden until the second exchange moved it: the chart does not tell her starting AP
    assert chart(table, SPECTATOR) == [
        (0, False, {"aria": None, "orc": None}),
        (1, False, {"aria": None, "orc": orc_after_one}),
        (2, False, {"aria": aria_after_two, "orc": orc_after_one}),
    ]
    assert chart(table, BOB_VIEW)[:2] == [
        (0, False, {"aria": None, "orc": 12}),
        (1, False, {"aria": None, "orc": orc_after_one}),
    ]
    assert chart(table, ANN)[:2] == [
        (0, False, {"aria": 15, "orc": None}),
        (1, False, {"aria": 15, "orc": orc_after_one}),
    ]
    # what the chart shows last is what the contestants' AP shows
    for viewer in (GM_VIEW, ANN, BOB_VIEW, SPECTATOR):
        assert chart(table, viewer)[-1][2] == {c.id: c.ap for c in view(table.rules, viewer).contestants}


def test_adjustments_between_two_exchanges_make_one_point_after_the_first() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    table.declare(x.Intent(bid=3), x.Intent(bid=2), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    orc = table.ap("orc")
    table.do(GM, x.Adjust(contestant="aria", delta=-2, reason="she slips"))
    table.do(GM, x.Adjust(contestant="aria", delta=-1, reason="and slips again"))
    assert chart(table, SPECTATOR)[1:] == [
        (1, False, {"aria": None, "orc": orc}),
        (1, True, {"aria": 12, "orc": orc}),
    ]
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    assert [(p[0], p[1]) for p in chart(table, SPECTATOR)] == [(0, False), (1, False), (1, True), (2, False)]


def test_an_undone_exchange_leaves_the_chart() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    table.declare(x.Intent(bid=3), x.Intent(bid=2), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    assert len(chart(table, GM_VIEW)) == 3
    table.do(GM, Undo())
    assert chart(table, GM_VIEW) == [
        (0, False, {"aria": 15, "orc": 12}),
        (1, False, {"aria": 15, "orc": table.ap("orc")}),
    ]


def test_a_long_contest_keeps_the_newest_points_only() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    quiet = x.Intent(bid=1, kind="unrelated")  # no AP moves: the contest lasts as long as we like
    rounds = CHART_POINTS // 2 + 5
    for _ in range(rounds):
        table.declare(quiet, quiet, orc_actor=BOB)
        table.do(GM, x.Roll(faces=[5, 15]))
        table.stand()
        table.do(GM, x.Roll(faces=[5, 15]))
        table.stand()
    points = chart(table, SPECTATOR)
    assert len(points) == CHART_POINTS
    assert [p[0] for p in points] == list(range(2 * rounds - CHART_POINTS + 1, 2 * rounds + 1))
    assert all(p[2] == {"aria": None, "orc": None} for p in points)  # no AP ever moved: hidden throughout
    table.do(GM, x.Adjust(contestant="orc", delta=-1, reason="a scratch"))
    points = chart(table, SPECTATOR)
    assert len(points) == CHART_POINTS and points[-1] == (2 * rounds, True, {"aria": None, "orc": 11})
    assert points[-2][2] == {"aria": None, "orc": None}
