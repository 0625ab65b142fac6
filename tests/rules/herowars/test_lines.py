"""The lines people read of a Hero Wars contest (notices, the timeline, replays) name its contestants by the
names their setup gave them, never by their ids: for every event, for the GM, the player and a spectator."""

from __future__ import annotations

import typing
from collections.abc import Callable

import pytest

from protocol.common import Actor, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import herowars as h
from server.rules.herowars.ruleset import HEROWARS
from tests.engine.table import ANN, GM, SPECTATOR, Table
from tests.rules.lines import assert_named, kinds, lines

NAMES = {"aria": "Sir Aria", "grisk-the-orc": "Grisk the Orc"}


def ford(aria: str = "15", grisk: str = "15", hero_points: int = 2) -> Table:
    """Ann's Sir Aria (id ``aria``) against Grisk the Orc (id ``grisk-the-orc``), whom the GM runs."""
    return Table(
        CreateContest(
            ruleset="herowars",
            title="The ford",
            dice="physical",
            contest="ford",
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"])],
            setup=h.HerowarsSetup(
                prize="the ford",
                cap_3x=False,
                contestants=[
                    h.Contestant(id="aria", name="Sir Aria", ability="Sword", rating=aria, hero_points=hero_points),
                    h.Contestant(id="grisk-the-orc", name="Grisk the Orc", ability="Axe", rating=grisk),
                ],
            ),
        )
    )


def declare(table: Table, aria: h.Intent, grisk: h.Intent) -> None:
    table.do(ANN, Declare(participant="aria", payload=aria))
    table.do(GM, Declare(participant="grisk-the-orc", payload=grisk))


def answer(table: Table) -> None:
    """Ann lets Sir Aria's result stand when the exchange waits for her."""
    if table.rules.phase == "rolled":
        table.do(ANN, h.PassHeroPoint(contestant="aria"))


def a_contest() -> Table:
    """The GM's order, a tie the GM settles, a hero point spent, both fumbling, an adjustment, the victory and
    an adjustment that resumes the contest."""
    table = ford()
    table.do(GM, h.SetOrder(order=["grisk-the-orc", "aria"]))
    declare(table, h.Intent(action="a charge", bid=4), h.Intent(action="a wild swing", bid=3))
    table.do(GM, h.Roll(faces=[1, 1]))  # both Critical: a tie
    answer(table)
    table.do(GM, h.SettleTie(winner="grisk-the-orc", loss=2, transfer=True, reason="his axe bites"))
    table.do(GM, h.Roll(faces=[17, 18]))  # both fail
    table.do(ANN, h.SpendHeroPoint(contestant="aria"))  # her Success: Grisk loses 2 × 4
    table.do(GM, h.Adjust(contestant="grisk-the-orc", delta=-1, reason="a slip on the stones"))
    declare(table, h.Intent(bid=10), h.Intent(bid=3))
    table.do(GM, h.Roll(faces=[20, 20]))  # both Fumble: both lose double the bid
    answer(table)
    table.do(GM, h.Roll(faces=[6, 17]))  # her Success against his Failure: Grisk loses 2 × 10
    answer(table)
    assert table.rules.outcome is not None and table.rules.outcome.winner == "aria"
    table.do(GM, h.Adjust(contestant="grisk-the-orc", delta=25, reason="the river god intervenes"))
    assert table.rules.outcome is None
    return table


def both_fall() -> Table:
    table = ford(aria="5", grisk="5", hero_points=0)
    declare(table, h.Intent(bid=3), h.Intent(bid=3))
    table.do(GM, h.Roll(faces=[20, 20]))  # both Fumble: both lose double the bid, both fall
    answer(table)
    assert table.rules.outcome is not None and table.rules.outcome.winner is None
    return table


PLAYS: list[Callable[[], Table]] = [a_contest, both_fall]


@pytest.mark.parametrize("play", PLAYS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("viewer", [GM, ANN, SPECTATOR], ids=lambda a: a.principal)
def test_every_line_names_the_contestants_and_shows_no_id(play: Callable[[], Table], viewer: Actor) -> None:
    table = play()
    assert HEROWARS.names(table.rules) == NAMES
    told = lines(table, viewer)
    assert_named(told, NAMES)
    assert any("Grisk the Orc" in line.named for line in told)


def test_every_event_of_the_ruleset_is_among_the_lines_checked() -> None:
    told = [line for play in PLAYS for line in lines(play())]
    tags = {str(t.__struct_config__.tag) for t in typing.get_args(h.Event)}
    assert tags <= kinds(told), tags - kinds(told)


def test_the_lines_read_as_a_player_would_say_them() -> None:
    told = [line.named for line in lines(a_contest())]
    assert "round 1 begins: Sir Aria, Grisk the Orc" in told
    assert "order set: Grisk the Orc, Sir Aria" in told
    assert "exchange 1: Grisk the Orc bids 3; Grisk the Orc rolled 1 (Critical), Sir Aria rolled 1 (Critical)" in told
    assert (
        "exchange 1: tie settled by the GM; Grisk the Orc wins; Sir Aria loses 2; Grisk the Orc gains 2; his axe bites"
        in told
    )
    assert "Sir Aria spends a hero point: Success" in told
    assert "exchange 2: winner table × loser table; Sir Aria wins; Grisk the Orc loses 8" in told
    assert "the GM adjusts Grisk the Orc's AP by -1: a slip on the stones" in told
    assert "Sir Aria wins (Pumped): Grisk the Orc Minor (Impaired)" in told
    fell = [line.named for line in lines(both_fall()) if isinstance(line.event, h.ContestDecided)]
    assert fell == ["the contest is decided, both fall: Sir Aria Marginal (Hurt); Grisk the Orc Marginal (Hurt)"]


def test_a_reason_the_gm_typed_is_never_renamed() -> None:
    event = h.ExchangeApplied(3, "tie", None, {}, 0, reason="aria and grisk-the-orc circle")
    assert HEROWARS.describe(event, NAMES) == (
        "exchange 3: tie settled by the GM; nobody loses AP; aria and grisk-the-orc circle"
    )
