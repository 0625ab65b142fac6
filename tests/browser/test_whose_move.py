"""Whose move, in real Chromium, for every ruleset: the page of the player whose move it is says "Your move: …"
at its top, its tab's title starts with the marker and its favicon changes, while another page says "Waiting for
<that player's name> to …"; once the player has moved (through the Python client, as from any other page), both
lines and the title change at once. The GM reads how long the table has waited on a player, and the alerts
(off by default, remembered by the browser) chime, notify and vibrate when the move becomes yours.

Each contest is one test_names_everywhere.py plays (ids renamed so that no id is a name), played to a point where
exactly one player is awaited."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from clients.python.client import AgonClient
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
from tests.browser.conftest import PHONE, Pages, assert_accessible, screenshot
from tests.browser.test_dice import _extended
from tests.browser.test_names_everywhere import TABLES, Table, _play, renamed
from tests.e2e.conftest import ServerFactory
from tests.net.duel import ARIA_WINS

MARK = "● Your move · "


@dataclass(frozen=True)
class Case:
    """A contest played to one player's move: who moves (a seat), whose page watches it (``other``), the line
    each reads before, the move, and the line each reads after it."""

    played: list[tuple[str, Any]]
    mover: str
    other: str
    before: str  # what the mover is to do
    move: Any
    after: str  # the mover's line once it has moved
    other_after: str  # the other page's line then


CASES: dict[str, Case] = {
    "extended": Case(
        [("ann", Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))],
        "bob",
        "ann",
        "seal an intent",
        Declare(participant="orc", payload=x.Intent(action="parry", bid=3)),
        "Waiting for the GM to roll exchange 1",  # physical dice: the GM types the faces
        "Waiting for the GM to roll exchange 1",
    ),
    "herowars": Case(
        [("ann", Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))],
        "bob",
        "ann",
        "seal an intent",
        Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)),
        "Waiting for the GM to roll exchange 1",
        "Waiting for the GM to roll exchange 1",
    ),
    "scored": Case(
        [
            ("gm", s.StartRound(initiative="aria", responder="ogre")),
            ("gm", Declare(participant="ogre", payload=s.Tactic(tactic="defensive"))),
        ],
        "ann",
        "bob",
        "seal a tactic",
        Declare(participant="aria", payload=s.Tactic(tactic="gambit", action="leap from the rail")),
        "Waiting for the GM to roll round 1",
        "Waiting for the GM to roll round 1",
    ),
    "karbon": Case(
        TABLES["karbon"]().commands[:2],  # the contest set up and its hands drawn
        "ann",
        "gm",  # the scene's only player: the GM's page watches
        "seal the risk",
        Declare(participant="vera", payload=k.Risk(all_in=False)),
        "Waiting for the GM to roll round 1",
        "Your move: roll round 1",
    ),
    "contingency": Case(
        [
            ("gm", c.OpenIntent()),
            ("ann", Declare(participant="rook", payload=c.Intent(actions=["Strike", "Taunt"]))),
            ("cat", Declare(participant="moss", payload=c.Intent(actions=["Reposition"]))),
            ("gm", Declare(participant="bandit", payload=c.Intent(actions=["Shoot"]))),
        ],
        "bob",
        "ann",
        "seal an intent",
        Declare(participant="wren", payload=c.Intent(actions=["Strike"])),
        "Waiting for Ann to roll Rook's Taunt",  # the round's first action: Rook's Influence card
        "Your move: roll Rook's Taunt",
    ),
}


def _run(coroutine: Any) -> Any:
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        return pool.submit(asyncio.run, coroutine).result()


async def _act(url: str, contest: str, token: str, command: Any) -> None:
    """One command from the seat of ``token``, as its page would send it."""
    client = await AgonClient.connect(url, follow=[Follow(contest, token)])
    try:
        await client.command(contest, command)
    finally:
        await client.close()


def _line(page: Page) -> Any:
    return page.get_by_test_id("whose-move")


def _icon(page: Page) -> str:
    href: str = page.evaluate("() => document.querySelector(\"link[rel~='icon']\").getAttribute('href')")
    return href


@pytest.mark.parametrize("ruleset", list(CASES))
def test_the_player_whose_move_it_is_is_told_and_everyone_else_reads_whom_the_table_waits_for(
    ruleset: str, agon_server: ServerFactory, pages: Pages
) -> None:
    server = agon_server()
    case = CASES[ruleset]
    table: Table = TABLES[ruleset]()
    table.commands = list(case.played)
    contest, links = _run(_play(server.ws_url, table))
    seat = {who: table.ids.get(who, who) for who in ("gm", "ann", "bob", "cat")}
    name = {"ann": "Ann", "bob": "Bob", "cat": "Cat", "gm": "the GM"}
    mover, _ = pages.open(f"{server.http_url}/#t={links[seat[case.mover]]}")
    other, _ = pages.open(f"{server.http_url}/#t={links[seat[case.other]]}", color_scheme="dark")

    expect(_line(mover)).to_have_text(f"Your move: {case.before}")
    expect(mover).to_have_title(re.compile("^" + re.escape(MARK)))
    assert _icon(mover) == "/favicon-move.svg"
    expect(_line(other)).to_have_text(f"Waiting for {name[case.mover]} to {case.before}")
    assert not other.title().startswith(MARK) and _icon(other) == "/favicon.svg"
    screenshot(mover, f"whose-move-{ruleset}")
    assert_accessible(mover, f"{ruleset}: the page whose move it is")
    assert_accessible(other, f"{ruleset}: a page waiting for another, dark")

    _run(_act(server.ws_url, contest, links[seat[case.mover]], renamed(case.move, table.ids)))
    expect(_line(mover)).to_have_text(case.after)
    expect(mover).not_to_have_title(re.compile("^" + re.escape(MARK)))
    assert _icon(mover) == "/favicon.svg"
    expect(_line(other)).to_have_text(case.other_after)
    assert other.title().startswith(MARK) == case.other_after.startswith("Your move")
    assert pages.errors == [], pages.errors


NOTIFICATIONS = """
window.__notified = [];
window.__asked = 0;
window.__vibrated = [];
class FakeNotification {  // a permission granted stays granted for the site, as the browser keeps it
  static get permission() { return localStorage.getItem("test.permission") ?? "default"; }
  static requestPermission() {
    window.__asked += 1;
    localStorage.setItem("test.permission", "granted");
    return Promise.resolve("granted");
  }
  constructor(title, options) { window.__notified.push({ title, body: options?.body ?? "" }); }
}
window.Notification = FakeNotification;
navigator.vibrate = (pattern) => { window.__vibrated.push(pattern); return true; };
"""


def test_alerts_are_off_until_switched_on_and_then_chime_notify_and_vibrate_when_the_move_becomes_yours(
    agon_server: ServerFactory, pages: Pages
) -> None:
    server = agon_server()
    table = _extended()  # every roll waits for both players' answers
    table.commands = [("ann", Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))]
    contest, links = _run(_play(server.ws_url, table))
    ann_token, bob_token, gm = links[table.ids["ann"]], links[table.ids["bob"]], links["gm"]
    page, _ = pages.open(f"{server.http_url}/#t={ann_token}")
    page.add_init_script(NOTIFICATIONS)
    page.reload()
    expect(_line(page)).to_have_text("Waiting for Bob to seal an intent")
    toggle = page.get_by_label("Alert me when it is my move")
    expect(toggle).not_to_be_checked()  # off by default
    toggle.check()
    assert page.evaluate("() => window.__asked") == 1  # the permission is asked for on the toggle only
    page.reload()  # remembered by this browser
    expect(page.get_by_label("Alert me when it is my move")).to_be_checked()
    assert page.evaluate("() => window.__asked") == 0

    gm_page, _ = pages.open(f"{server.http_url}/#t={gm}")
    gm_page.clock.install()
    gm_page.add_init_script(NOTIFICATIONS)
    gm_page.reload()
    expect(_line(gm_page)).to_have_text("Waiting for Bob to seal an intent")

    parry = Declare(participant="orc", payload=x.Intent(action="parry"))
    _run(_act(server.ws_url, contest, bob_token, renamed(parry, table.ids)))
    expect(_line(gm_page)).to_have_text("Your move: roll exchange 1")
    expect(gm_page).to_have_title(re.compile("^" + re.escape(MARK)))
    assert gm_page.evaluate("() => [window.__notified, window.__vibrated]") == [[], []]  # the GM's alerts are off
    _run(_act(server.ws_url, contest, gm, x.Roll(faces=ARIA_WINS)))
    expect(_line(page)).to_have_text("Your move: let the roll stand or spend a hero point")
    expect(page).to_have_title(re.compile("^" + re.escape(MARK)))
    notified = page.evaluate("() => window.__notified")
    assert [n["body"] for n in notified] == ["Your move: let the roll stand or spend a hero point"], notified
    assert page.evaluate("() => window.__vibrated") == [[120, 60, 120]]

    # the GM sees whom the table is waiting on, and for how long
    expect(_line(gm_page)).to_have_text("Waiting for Ann and Bob to let the roll stand or spend a hero point")
    gm_page.clock.fast_forward("02:05")
    expect(_line(gm_page)).to_have_text("Waiting for Ann and Bob to let the roll stand or spend a hero point · 2 min")
    expect(gm_page.get_by_test_id("go-to-move")).to_have_count(0)  # the GM's move it is not

    # on a phone the move is far below the line; the line takes Bob there
    phone, _ = pages.open(f"{server.http_url}/#t={bob_token}", viewport=PHONE, has_touch=True)
    expect(_line(phone)).to_have_text("Your move: let the roll stand or spend a hero point")
    heading = phone.get_by_role("heading", name="Your move")
    expect(heading).not_to_be_in_viewport()
    phone.get_by_role("button", name="Go to your move").click()
    expect(heading).to_be_in_viewport()
    expect(heading).to_be_focused()
    expect(phone.get_by_role("button", name="Let it stand").first).to_be_in_viewport()
    assert pages.errors == [], pages.errors
