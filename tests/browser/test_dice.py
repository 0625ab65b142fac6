"""Every ruleset's roll is drawn as dice on a player's page and on a spectator's: an SVG die per die rolled,
named in words with its number of sides and its face, the kept (middle) die marked where the rules keep one,
tumbling in unless the browser asks for reduced motion. The pages stay accessible and fit a phone. Once the roll
is applied its dice stay drawn, the winning die marked. With physical dice the GM taps each die's face instead of
typing it, and the roll is made with the faces tapped.

Each contest is one test_names_everywhere.py plays (ids renamed so that no id is a name), played to a roll.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from playwright.sync_api import Page, expect

from protocol.events import Declare
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
from tests.browser.conftest import DESKTOP, PHONE, Pages, assert_accessible, screenshot
from tests.browser.test_names_everywhere import TABLES, Table, _play
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_karbon import AGENT


@dataclass(frozen=True)
class Drawn:
    """A die a page draws: its sides, its face, whether it is the kept (middle) one."""

    sides: int
    face: int
    kept: bool = False


def _extended() -> Table:
    table = TABLES["extended"]()
    setup = msgspec.structs.replace(table.request.setup, hero_point_window="always")  # the dice wait for answers
    table.request = msgspec.structs.replace(table.request, setup=setup)
    return table


def _contingency() -> Table:
    """Rook's Taunt (5-7-2: the 5 is the result), Moss's Reposition (4-4-9), then Rook's Strike at −2 (1-4-9),
    waiting for the penalty to be taken: every die a d10, the characters having no other sizes."""
    table = TABLES["contingency"]()
    table.commands = [
        ("gm", c.OpenIntent()),
        ("ann", Declare(participant="rook", payload=c.Intent(actions=["Taunt", "Strike"]))),
        ("bob", Declare(participant="wren", payload=c.Intent(actions=["Strike"]))),
        ("cat", Declare(participant="moss", payload=c.Intent(actions=["Reposition"]))),
        ("gm", Declare(participant="bandit", payload=c.Intent(actions=["Shoot"]))),
        ("ann", c.Roll(faces=[5, 7, 2])),
        ("cat", c.Roll(faces=[4, 4, 9])),
        ("ann", c.Roll(step=c.Step(engage="bandit"), faces=[1, 4, 9])),
    ]
    return table


# Per ruleset: the contest played to a roll, and where each page draws which dice (by the testid around them).
CASES: dict[str, tuple[Callable[[], Table], dict[str, list[Drawn]]]] = {
    "extended": (_extended, {"exchange": [Drawn(20, 2), Drawn(20, 15)]}),
    "herowars": (TABLES["herowars"], {"exchange": [Drawn(20, 6), Drawn(20, 12)]}),
    "scored": (TABLES["scored"], {"pending": [Drawn(20, 15), Drawn(20, 10)]}),
    "karbon": (
        TABLES["karbon"],
        {"hand-agent": [*[Drawn(6, 2)] * len(AGENT), Drawn(10, 9)], "hand-narrator": [Drawn(10, 4)]},
    ),  # the narrator's turncoat (9) went to the agent's hand with the round's roll
    "contingency": (
        _contingency,
        {
            "rolling-dice": [Drawn(10, 1), Drawn(10, 4, kept=True), Drawn(10, 9)],
            "last-dice": [Drawn(10, 4), Drawn(10, 4, kept=True), Drawn(10, 9)],
        },
    ),
}

DICE = """(box) => [...box.querySelectorAll('svg.rolled-die')].map((svg) => ({
  sides: Number(svg.dataset.sides),
  face: Number(svg.dataset.face),
  kept: svg.classList.contains('kept'),
  role: svg.getAttribute('role'),
  name: svg.getAttribute('aria-label') ?? svg.closest('[aria-label]')?.getAttribute('aria-label') ?? '',
  animation: getComputedStyle(svg).animationName,
  shown: svg.querySelector('.die-num').textContent,
}))"""


def _drawn(page: Page, testid: str) -> list[dict[str, Any]]:
    box = page.get_by_test_id(testid).first
    expect(box.locator("svg.rolled-die").first).to_be_visible()
    found: list[dict[str, Any]] = box.evaluate(DICE)
    return found


def _check(page: Page, where: dict[str, list[Drawn]], animation: str, who: str) -> None:
    for testid, expected in where.items():
        dice = _drawn(page, testid)
        assert [Drawn(d["sides"], d["face"], d["kept"]) for d in dice] == expected, f"{who}: {testid}: {dice}"
        for die, want in zip(dice, expected, strict=True):
            assert f"d{want.sides} showing {want.face}" in die["name"], f"{who}: {die}"
            assert die["shown"] == str(want.face), f"{who}: {die}"
            marked = "middle" in die["name"] or "winning die" in die["name"]
            assert marked == want.kept, f"{who}: {die}"
            if die["role"] is not None:  # a die of its own is an image; one inside a named die button is not
                assert die["role"] == "img", f"{who}: {die}"
            assert die["animation"] == animation, f"{who}: {die}"


@pytest.mark.parametrize("ruleset", list(CASES))
def test_rolls_are_drawn_as_dice(ruleset: str, agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    make, where = CASES[ruleset]
    table = make()
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        _, links = pool.submit(asyncio.run, _play(server.ws_url, table)).result()
    url = f"{server.http_url}/#t="
    player, _ = pages.open(url + links[table.ids["ann"]])
    _check(player, where, "dice-tumble", f"{ruleset}, the player")
    screenshot(player, f"dice-{ruleset}")
    assert_accessible(player, f"{ruleset}: the player's page with its dice")
    watcher, _ = pages.open(url + links["spectator"], reduced_motion="reduce", color_scheme="dark")
    _check(watcher, where, "none", f"{ruleset}, a spectator asking for reduced motion")
    screenshot(watcher, f"dice-{ruleset}-dark")
    assert_accessible(watcher, f"{ruleset}: the spectator's page with its dice, dark")
    assert pages.errors == [], pages.errors


def _applied(make: Callable[[], Table], *more: tuple[str, Any]) -> Callable[[], Table]:
    """The contest ``make`` plays, played on with ``more`` until its roll is applied."""

    def table() -> Table:
        played = make()
        played.commands = [*played.commands, *more]
        return played

    return table


# Per ruleset: the contest played past its roll, and where the board draws the dice of the roll applied.
APPLIED: dict[str, tuple[Callable[[], Table], dict[str, list[Drawn]]]] = {
    "extended": (
        _applied(_extended, ("gm", x.Confirm())),
        {"last-roll-dice": [Drawn(20, 2, kept=True), Drawn(20, 15)]},
    ),
    "herowars": (
        _applied(TABLES["herowars"], ("gm", h.Confirm())),  # both succeed: the lower die wins
        {"last-roll-dice": [Drawn(20, 6, kept=True), Drawn(20, 12)]},
    ),
    "scored": (
        _applied(TABLES["scored"], ("gm", s.Confirm())),  # Aria's 15 at 15 is a big success
        {"last-roll-dice": [Drawn(20, 15, kept=True), Drawn(20, 10)]},
    ),
    "karbon": (
        _applied(TABLES["karbon"], ("ann", k.EndTest(side="agent"))),
        {"last-roll-agent": [Drawn(6, 2)] * len(AGENT), "last-roll-narrator": [Drawn(10, 4), Drawn(10, 9)]},
    ),
}


@pytest.mark.parametrize("ruleset", list(APPLIED))
def test_a_roll_stays_drawn_once_applied(ruleset: str, agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    make, where = APPLIED[ruleset]
    table = make()
    with ThreadPoolExecutor(1) as pool:
        _, links = pool.submit(asyncio.run, _play(server.ws_url, table)).result()
    watcher, _ = pages.open(f"{server.http_url}/#t={links['spectator']}", reduced_motion="reduce")
    _check(watcher, where, "none", f"{ruleset}, a spectator after the roll is applied")
    if ruleset != "karbon":
        expect(watcher.get_by_test_id("exchange").or_(watcher.get_by_test_id("pending"))).to_have_count(0)
    assert pages.errors == [], pages.errors


def _tap(page: Page, testid: str, face: int) -> None:
    button = page.get_by_test_id(f"{testid}-pick-{face}")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id(testid)).to_have_value(str(face))


def test_the_gm_taps_the_faces_of_physical_dice(agon_server: ServerFactory, pages: Pages) -> None:
    """A duel with physical dice: on a phone, the GM taps Aria's 2 and the Orc's 15 among the d20s' faces (each a
    button big enough for a finger), enters them, and applies the exchange: the dice drawn are those tapped."""
    server = agon_server()
    table = _extended()
    table.commands = table.commands[:-1]  # the intents only: the roll is the GM's to enter on the page
    with ThreadPoolExecutor(1) as pool:
        _, links = pool.submit(asyncio.run, _play(server.ws_url, table)).result()
    gm, frames = pages.open(f"{server.http_url}/#t={links['gm']}", viewport=PHONE, has_touch=True)
    grid = gm.get_by_test_id("face-actor-pick")
    expect(grid.get_by_role("button")).to_have_count(20)
    sizes = grid.get_by_role("button").evaluate_all("(all) => all.map((b) => [b.offsetWidth, b.offsetHeight])")
    assert min(min(size) for size in sizes) >= 40, sizes
    _tap(gm, "face-actor", 7)
    _tap(gm, "face-actor", 2)  # another tap changes the face chosen
    expect(grid.get_by_role("button", name="7", exact=True)).to_have_attribute("aria-pressed", "false")
    _tap(gm, "face-defender", 15)
    gm.get_by_test_id("faces").get_by_role("button", name="Enter the faces").click()
    _check(gm, {"exchange": [Drawn(20, 2), Drawn(20, 15)]}, "dice-tumble", "the GM, after tapping the faces")
    rolled = [m for m in map(json.loads, frames.sent) if m.get("command", {}).get("type") == "extended.roll"]
    assert [m["command"]["faces"] for m in rolled] == [[2, 15]]
    gm.get_by_test_id("confirm").click()
    _check(gm, {"last-roll-dice": [Drawn(20, 2, kept=True), Drawn(20, 15)]}, "dice-tumble", "the GM, once applied")
    _tap(gm, "face-actor", 11)  # the Orc's exchange comes next: its faces are tapped the same way
    gm.set_viewport_size(DESKTOP)
    screenshot(gm, "physical-dice")
    assert_accessible(gm, "the GM's page after tapping the faces")
    assert pages.errors == [], pages.errors
