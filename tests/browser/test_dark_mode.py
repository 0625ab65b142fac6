"""Dark mode: with `prefers-color-scheme: dark` every page turns dark (dark paper, light ink) and axe-core still
finds no serious or critical violation, colour contrast included: the start page, the new-contest form, the GM
console, a player's and a spectator's page of an extended duel (with a sealed intent, a result, an undone
exchange), and a Contingency GM console with its zone map. Screenshots go where the other browser tests put
theirs, named ``*-dark``."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_contest import declare, faces, link_of
from tests.browser.test_contingency import create as create_contingency
from tests.e2e.conftest import ServerFactory


def open_dark(pages: Pages, url: str) -> Page:
    """A page in its own browser context that prefers a dark colour scheme (closed with the others)."""
    return pages.open(url, color_scheme="dark")[0]


LUMINANCE = """(selector) => {
  const rgb = (colour) => colour.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = ([r, g, b]) => {
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const root = getComputedStyle(document.documentElement);
  const panel = document.querySelector(selector);
  return {
    scheme: matchMedia('(prefers-color-scheme: dark)').matches,
    paper: luminance(rgb(root.backgroundColor)),
    ink: luminance(rgb(getComputedStyle(document.body).color)),
    panel: panel ? luminance(rgb(getComputedStyle(panel).backgroundColor)) : null,
  };
}"""


def assert_dark(page: Page, where: str, panel: str = ".panel, fieldset") -> None:
    """The page is dark: dark paper and cards, light ink."""
    seen = page.evaluate(LUMINANCE, panel)
    assert seen["scheme"], f"{where}: the page does not prefer a dark scheme"
    assert seen["paper"] < 0.02, f"{where}: the page's background is not dark: {seen}"
    assert seen["ink"] > 0.6, f"{where}: the text is not light: {seen}"
    assert seen["panel"] is None or seen["panel"] < 0.03, f"{where}: the panels are not dark: {seen}"


def check(page: Page, where: str) -> None:
    assert_dark(page, where)
    assert_accessible(page, f"{where} (dark)")


def test_every_page_is_dark_and_accessible_in_dark_mode(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm = open_dark(pages, f"{server.http_url}/")
    expect(gm.get_by_role("heading", name="Agon", exact=True)).to_be_visible()
    check(gm, "start page")
    screenshot(gm, "start-dark")

    # the new-contest form, with a field explained as invalid
    gm.get_by_test_id("new-contest").click()
    expect(gm.get_by_role("heading", name="New contest")).to_be_visible()
    gm.get_by_label("Title", exact=True).fill("Duel at the bridge")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_label("Prize", exact=True).fill("the bridge")
    seats = (("Aria", "Sword", "15X", "Ann"), ("Orc", "Axe", "12", "Bob"))
    for row, (name, ability, rating, player) in enumerate(seats):
        gm.locator(f"input[name=c{row}-name]").fill(name)
        gm.locator(f"input[name=c{row}-ability]").fill(ability)
        gm.locator(f"input[name=c{row}-rating]").fill(rating)
        gm.locator(f"input[name=c{row}-player]").fill(player)
    gm.get_by_test_id("create").click()
    expect(gm.get_by_text("Write a rating like 14, 5W or 5W2.")).to_be_visible()
    check(gm, "new-contest form")
    screenshot(gm, "new-contest-dark")
    gm.locator("input[name=c0-rating]").fill("15")
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")

    ann = open_dark(pages, link_of(gm, "invite-ann"))
    bob = open_dark(pages, link_of(gm, "invite-bob"))
    watcher = open_dark(pages, link_of(gm, "invite-spectator"))
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(watcher.get_by_test_id("role")).to_have_text("Spectator")

    # a sealed intent on the player's page, then both revealed
    declare(ann, "aria", "feint left", 7)
    expect(ann.get_by_test_id("sealed-aria")).to_contain_text("waiting for 1 other")
    check(ann, "player page, sealed")
    screenshot(ann, "player-sealed-dark")
    declare(bob, "orc", "overhead swing", 3)
    expect(watcher.get_by_test_id("intents")).to_contain_text("overhead swing")

    # one exchange played and undone, then played again: struck-out lines on the GM's timeline and in the logs
    faces(gm, 2, 15, ann, bob)
    expect(watcher.get_by_test_id("ap-orc")).to_have_text("5")
    gm.get_by_test_id("undo").click()
    expect(gm.get_by_test_id("timeline").locator("li.undone").first).to_be_visible()
    expect(watcher.get_by_label("contest log").locator("li.undone").first).to_be_visible()
    check(gm, "GM console with an undone exchange")
    check(watcher, "spectator page with an undone exchange")
    gm.get_by_test_id("redo").click()
    faces(gm, 15, 2, ann, bob)
    expect(watcher.get_by_test_id("phase")).to_contain_text("Round 2")
    gm.get_by_test_id("invite-ann").get_by_role("button", name="QR").click()
    check(gm, "GM console")
    screenshot(gm, "gm-console-dark")
    check(ann, "player page")
    screenshot(ann, "player-dark")
    check(watcher, "spectator page")
    screenshot(watcher, "spectator-dark")

    # a Contingency encounter: the GM console with its zone map, a zone selected
    gm.goto(f"{server.http_url}/")
    create_contingency(gm)
    expect(gm.get_by_test_id("token-ellis")).to_be_visible()
    gm.get_by_test_id("zone-forest-clearing").click()
    expect(gm.get_by_test_id("landscape")).to_contain_text("Forest Clearing")
    check(gm, "Contingency GM console with the zone map")
    zone = gm.get_by_test_id("zone-forest-clearing").locator("rect").first
    fill = zone.evaluate("(rect) => getComputedStyle(rect).fill")
    assert re.fullmatch(r"rgb\((\d+), (\d+), (\d+)\)", fill) and max(map(int, re.findall(r"\d+", fill))) < 80, fill
    screenshot(gm, "contingency-map-dark")
    assert pages.errors == [], pages.errors
