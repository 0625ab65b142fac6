"""The Python client's "whose move": what a view received as JSON says the table waits for, as each seat's page
says it, and the terminal's screen starting with that line."""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console

from clients.python.terminal import screen
from clients.python.turn import CONCLUDED, Wait, my_move, waits, whose_move
from protocol.codec import encode
from protocol.common import Actor
from protocol.events import Conclude, Declare
from protocol.rulesets import extended as x
from server.engine.views import contest_view, viewer_for
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table, duel
from tests.rules.waiting import named


def doc(table: Table, actor: Actor) -> dict[str, Any]:
    view = contest_view(table.ruleset, table.contest, viewer_for(actor, table.contest.created.seats))
    received: dict[str, Any] = json.loads(encode(view))
    return received


def shown(view: dict[str, Any], seat: str | None) -> list[str]:
    console = Console(file=io.StringIO(), width=120, color_system=None, record=True)
    console.print(screen.contest(view, seat))
    return console.export_text().splitlines()


def test_each_seat_reads_whose_move_it_is() -> None:
    table = Table(named(duel(dice="server", pvp=True)))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    ann, bob, watcher = doc(table, ANN), doc(table, BOB), doc(table, SPECTATOR)
    assert waits(ann) == [Wait(("bob",), "Bob", "seal an intent")]
    assert my_move(bob, "bob") == ["seal an intent"] and my_move(ann, "ann") == []
    assert whose_move(bob, "bob") == "Your move: seal an intent"
    assert whose_move(ann, "ann") == "Waiting for Bob to seal an intent"
    assert whose_move(watcher) == "Waiting for Bob to seal an intent"
    assert shown(bob, "bob")[0] == "Your move: seal an intent"  # the top of the terminal's screen
    assert shown(ann, "ann")[0] == "Waiting for Bob to seal an intent"


def test_the_gm_reads_its_own_steps_as_its_move_and_a_concluded_contest_waits_for_nothing() -> None:
    table = Table(named(duel(dice="physical")))  # the orc is the GM's
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge")))
    assert whose_move(doc(table, GM), "gm") == "Your move: seal an intent"
    table.do(GM, Declare(participant="orc", payload=x.Intent(action="roar")))
    assert whose_move(doc(table, ANN), "ann") == "Waiting for the GM to roll exchange 1"
    table.do(GM, Conclude())
    assert whose_move(doc(table, ANN), "ann") == CONCLUDED
    assert waits(doc(table, ANN)) == [] and whose_move(None) == ""
