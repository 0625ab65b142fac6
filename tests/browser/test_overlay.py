"""The stream overlay: the spectators' link with "&overlay" draws the public board, the last roll's dice (large)
and the chart on a transparent page with no header, no controls and no forms, at a streaming tool's size. A GM's
or a player's link with "&overlay" is refused with a sentence and shows nothing of its own sight; the GM console
offers the overlay link next to the spectators' link.

Each contest is one test_dice.py plays to a roll (ids renamed so that no id is a name).
"""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_dice import APPLIED, CASES, Drawn, _check
from tests.browser.test_names_everywhere import Table, _play
from tests.e2e.conftest import ServerFactory

STREAM = {"width": 1280, "height": 720}  # a 720p browser source (1920 × 1080 scales the same page up)
CONTROLS = ", ".join(
    [
        *(f"{tag}:visible" for tag in ("button", "input", "select", "textarea", "summary", "[role=button]")),
        "form",
        "header",
    ]
)
TRANSPARENT = "rgba(0, 0, 0, 0)"


def _links(server_ws: str, table: Table) -> dict[str, str]:
    """The contest created and played; its links by who opens them."""
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        _, links = pool.submit(asyncio.run, _play(server_ws, table)).result()
    return links


def _backgrounds(page: Page) -> list[str]:
    found: list[str] = page.evaluate(
        "() => [document.documentElement, document.body].map((e) => getComputedStyle(e).backgroundColor)"
    )
    return found


def _is_an_overlay(page: Page, where: dict[str, list[Drawn]], who: str) -> None:
    """The page is the overlay: the board, the dice drawn large, nothing to press, a transparent background."""
    overlay = page.get_by_test_id("overlay")
    expect(overlay).to_be_visible()
    expect(overlay.locator(".board")).to_be_visible()
    _check(page, where, "dice-tumble", who)
    die = page.get_by_test_id("overlay-last-dice").locator("svg.rolled-die").first
    die.evaluate("(d) => Promise.all(d.getAnimations().map((a) => a.finished))")  # measured once it has landed
    big = die.bounding_box()
    assert big is not None and big["width"] >= 70, f"{who}: the last roll's dice are drawn large ({big})"
    assert page.locator(CONTROLS).count() == 0, f"{who}: {page.locator(CONTROLS).all_inner_texts()}"
    assert _backgrounds(page) == [TRANSPARENT, TRANSPARENT], f"{who}: {_backgrounds(page)}"


def test_the_overlay_draws_the_board_the_last_roll_and_the_chart(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    make, where = APPLIED["extended"]  # a duel whose first exchange is applied: Aria's 2 beat the Orc's 15
    links = _links(server.ws_url, make())
    url = f"{server.http_url}/#t="
    page, _ = pages.open(f"{url}{links['spectator']}&overlay", viewport=STREAM)
    _is_an_overlay(page, {"overlay-last-dice": where["last-roll-dice"]}, "the overlay")
    expect(page.get_by_test_id("overlay-chart").locator("figure.chart")).to_be_visible()
    expect(page.locator(".topbar, [data-testid=connection], [data-testid=invitations]")).to_have_count(0)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= STREAM["width"]
    assert_accessible(page, "the stream overlay")
    screenshot(page, "overlay")

    for who in ("gm", table_seat(make())):  # a GM's or a player's link shows a sentence, not its sight
        refused, _ = pages.open(f"{url}{links[who]}&overlay", viewport=STREAM)
        expect(refused.get_by_test_id("overlay-refused")).to_contain_text("only what spectators see")
        expect(refused.get_by_test_id("overlay")).to_have_count(0)
        expect(refused.locator(".board, svg.rolled-die")).to_have_count(0)

    # the GM console offers the overlay's link next to the spectators' (this browser issues one: the contest was
    # created elsewhere)
    gm, _ = pages.open(f"{url}{links['gm']}")
    gm.get_by_role("button", name="Issue a spectators' link").click()
    spectators = gm.get_by_test_id("invite-spectator").get_by_role("textbox")
    expect(spectators).to_have_value(re.compile(f"^{re.escape(url)}"))
    offer = gm.get_by_test_id("invite-overlay")
    expect(offer.get_by_role("button", name="Copy the overlay link")).to_be_visible()
    expect(offer.get_by_role("textbox")).to_have_value(f"{spectators.input_value()}&overlay")
    assert pages.errors == [], pages.errors


def table_seat(table: Table) -> str:
    """The renamed seat id of Ann, the first player."""
    return table.ids["ann"]


@pytest.mark.parametrize("ruleset", ["herowars", "scored", "karbon", "contingency"])
def test_every_ruleset_draws_its_overlay(ruleset: str, agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    if ruleset in APPLIED:
        make, where = APPLIED[ruleset]
    else:
        make, rolled = CASES[ruleset]
        where = {"rolling-dice": rolled["rolling-dice"]}  # the newest roll: the one waiting for its penalty
    links = _links(server.ws_url, make())
    page, _ = pages.open(f"{server.http_url}/#t={links['spectator']}&overlay", viewport=STREAM)
    dice = [d for rows in where.values() for d in rows]
    _is_an_overlay(page, {"overlay-dice": dice}, f"{ruleset}'s overlay")
    assert pages.errors == [], pages.errors
