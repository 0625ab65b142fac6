"""A seat as a person reads it, wherever a page, a log line or the table talk names it."""

from __future__ import annotations

from protocol.common import Actor, Seat
from server.engine.names import naming, seat_called
from tests.engine.table import Table

THINGS = {"aria": "Sir Aria", "orc": "Grisk the Orc"}


def test_a_seat_the_gm_named_is_read_by_that_name() -> None:
    assert seat_called(Seat("s-ann", "player", ["aria"], name="  Ann "), THINGS) == "Ann"
    assert seat_called(Seat("gm-1", "gm", name="Morgan"), THINGS) == "Morgan"


def test_an_unnamed_seat_is_the_gm_or_the_player_of_whom_it_plays() -> None:
    assert seat_called(Seat("gm-1", "gm"), THINGS) == "the GM"
    assert seat_called(Seat("s-ann", "player", ["aria"]), THINGS) == "Sir Aria's player"
    assert seat_called(Seat("s-duo", "player", ["aria", "orc"]), THINGS) == "Sir Aria and Grisk the Orc's player"


def test_log_lines_name_an_unnamed_players_seat_by_whom_it_plays() -> None:
    table = Table()  # Ann's seat, unnamed, plays Aria
    lines = naming(table.ruleset, table.contest.created.seats, table.contest.rules)
    assert lines.actor(Actor("ann", "player")) == "Aria's player"
    assert lines.actor(Actor("gm", "gm")) == "the GM"
