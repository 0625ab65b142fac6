"""People read names, never ids: every page of every ruleset — the GM's, each player's, a spectator's, and the
GM's replay — after a few commands, shows no id of a contestant, seat, zone or die anywhere in its text, on a
laptop and on a phone, where it never scrolls sideways at 390 px.

Each contest is one the other tests play, with every id renamed so that no id is a name or part of one
("aria" becomes "c-aria", seat "ann" becomes "s-ann"), so an id that reaches a page is caught whole.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from playwright.sync_api import Page, expect

from clients.python.client import AgonClient
from protocol.events import CreateContest, Declare
from protocol.messages import Follow
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
from tests.browser.conftest import PHONE, Pages
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_contingency import _encounter
from tests.e2e.test_karbon import AGENT, NARRATOR, scene
from tests.net.duel import ARIA_WINS, duel, ford
from tests.rules.scored.table import heroes

DIE = re.compile(r"(?<![\w-])[dr]\d+-\d+(?![\w-])")  # Karbon's die ids: d6-4, d10-1, r6-3


def renamed(value: Any, ids: dict[str, str]) -> Any:
    """``value`` (a message) with every string that is one of ``ids`` replaced by its new id."""
    plain = msgspec.to_builtins(value)

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return ids.get(item, item)
        if isinstance(item, list):
            return [walk(i) for i in item]
        if isinstance(item, dict):
            return {ids.get(key, key): walk(v) for key, v in item.items()}
        return item

    return msgspec.convert(walk(plain), type(value))


@dataclass
class Table:
    """A contest to create, its ids (old -> new), and the commands to play: (seat, command) pairs."""

    request: CreateContest
    ids: dict[str, str]
    commands: list[tuple[str, Any]]


def _ids(*names: str, prefix: str = "c") -> dict[str, str]:
    return {n: f"{prefix}-{n}" for n in names}


SEATS = _ids("ann", "bob", "cat", prefix="s")


def _named_seats(request: CreateContest) -> CreateContest:
    named = msgspec.structs.replace
    seats = [seat if seat.role == "gm" else named(seat, name=seat.id.title()) for seat in request.seats]
    return msgspec.structs.replace(request, seats=seats)


TABLES: dict[str, Callable[[], Table]] = {
    "extended": lambda: Table(
        duel(),
        {**SEATS, **_ids("aria", "orc")},
        [
            ("ann", Declare(participant="aria", payload=x.Intent(action="lunge", bid=4))),
            ("bob", Declare(participant="orc", payload=x.Intent(action="parry", bid=3))),
            ("gm", x.Roll(faces=ARIA_WINS)),
        ],
    ),
    "herowars": lambda: Table(
        ford(),
        {**SEATS, **_ids("erik", "jonas")},
        [
            ("ann", Declare(participant="erik", payload=h.Intent(action="charge", bid=10))),
            ("bob", Declare(participant="jonas", payload=h.Intent(action="hold", bid=3))),
            ("gm", h.Roll(faces=[6, 12])),
        ],
    ),
    "scored": lambda: Table(
        heroes(),
        {**SEATS, **_ids("aria", "brin", "cato", "dina", "bors", "ogre", "gob")},
        [
            ("gm", s.StartRound(initiative="aria", responder="ogre")),
            ("ann", Declare(participant="aria", payload=s.Tactic(tactic="gambit", action="leap from the rail"))),
            ("gm", Declare(participant="ogre", payload=s.Tactic(tactic="defensive"))),
            ("gm", s.Roll(faces=[15, 10])),
        ],
    ),
    "karbon": lambda: Table(
        scene(),
        {**SEATS, **_ids("vera")},
        [
            ("gm", k.StartContest(goal="slip past", ability="Stealth", level=5, challenge=2, consequence=1)),
            ("gm", k.DrawHands(agent=AGENT, narrator=NARRATOR)),
            ("ann", Declare(participant="vera", payload=k.Risk(all_in=False))),
            ("gm", k.Roll(faces={**dict.fromkeys(AGENT, 2), "d10-1": 4, "d10-2": 9})),
        ],
    ),
    "contingency": lambda: Table(
        _encounter("public"),
        {**SEATS, **_ids("rook", "wren", "moss", "bandit", "bank", "river", "shore", "rock")},
        [
            ("gm", c.OpenIntent()),
            ("ann", Declare(participant="rook", payload=c.Intent(actions=["Strike", "Taunt"]))),
            ("bob", Declare(participant="wren", payload=c.Intent(actions=["Strike"]))),
            ("cat", Declare(participant="moss", payload=c.Intent(actions=["Reposition"]))),
            ("gm", Declare(participant="bandit", payload=c.Intent(actions=["Shoot"]))),  # revealed: the round's
        ],  # actions with their targets, difficulties and order, each named on the GM's page
    ),
}


async def _play(url: str, table: Table) -> tuple[str, dict[str, str]]:
    """The contest created and played; its links by who opens them (gm, each seat, spectator)."""
    request = renamed(_named_seats(table.request), table.ids)
    gm = await AgonClient.connect(url)
    created = await gm.create(request)
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    clients = {"gm": gm}
    for seat, token in tokens.seats.items():
        clients[seat] = await AgonClient.connect(url, follow=[Follow(contest, token)])
    for seat, command in table.commands:
        await clients[table.ids.get(seat, seat)].command(contest, renamed(command, table.ids))
    await asyncio.gather(*(client.close() for client in clients.values()))
    return contest, {"gm": tokens.gm, **tokens.seats, "spectator": tokens.spectator}


def _shown_ids(page: Page, ids: list[str]) -> list[str]:
    """Each id the page shows, with the words around it."""
    text = page.locator("body").inner_text()
    found = [re.compile(rf"(?<![\w-]){re.escape(i)}(?![\w-])") for i in ids] + [DIE]
    return [f"…{text[max(0, m.start() - 40) : m.end() + 40]}…" for pattern in found for m in pattern.finditer(text)]


@pytest.mark.parametrize("ruleset", list(TABLES))
def test_no_page_shows_an_id(ruleset: str, agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    table = TABLES[ruleset]()
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        _, links = pool.submit(asyncio.run, _play(server.ws_url, table)).result()
    ids = list(table.ids.values())
    urls = {who: f"{server.http_url}/#t={token}" for who, token in links.items()}
    urls["replay"] = f"{urls['gm']}&replay"
    for who, url in urls.items():
        page, _ = pages.open(url)
        expect(page.locator("main")).to_be_visible()
        expect(page.get_by_test_id("connection").or_(page.get_by_test_id("verification")).first).to_be_visible()
        if who != "replay" and table.commands:
            expect(page.locator(".log-list li, .timeline-list li").first).to_be_visible()
        page.wait_for_timeout(300)  # the last patches and notices
        assert _shown_ids(page, ids) == [], f"{ruleset}: the {who}'s page shows ids"
        page.set_viewport_size(PHONE)  # the same page on a phone: what it shows there, and its width
        page.wait_for_timeout(100)
        assert _shown_ids(page, ids) == [], f"{ruleset}: the {who}'s page shows ids on a phone"
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{ruleset}: the {who}'s page is {width} px wide on a phone"
    assert pages.errors == []
