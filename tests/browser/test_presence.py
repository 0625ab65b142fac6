"""Who is at the table, in real Chromium: the GM's page shows a player's seat held within a second of the player's
page opening, and away within a second of it closing — on one `agon serve`, and across two processes on Redis (the
GM on one, the player on the other). Every page shows the strip under its topbar, by names, in words for screen
readers, on a phone and in dark mode."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Locator, Page, expect

from clients.python.client import AgonClient
from protocol.messages import Invitations
from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory
from tests.net.test_presence import named_duel

SECOND = 1000  # ms: how soon every page shows a seat appearing or going


async def _create(url: str) -> Invitations:
    client = await AgonClient.connect(url)
    try:
        return (await client.create(named_duel())).invitations
    finally:
        await client.close()


def create(url: str) -> Invitations:
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        return pool.submit(asyncio.run, _create(url)).result()


def seat(page: Page, seat_id: str) -> Locator:
    return page.get_by_test_id("presence").get_by_test_id(f"presence-{seat_id}")


def expect_here(page: Page, seat_id: str, here: bool, timeout: int = SECOND) -> None:
    expect(seat(page, seat_id)).to_have_attribute("data-here", "yes" if here else "no", timeout=timeout)


def test_a_players_seat_appears_and_goes_on_the_gms_page_within_a_second(
    agon_server: ServerFactory, pages: Pages
) -> None:
    server = agon_server()
    tokens = create(server.ws_url)
    gm, _ = pages.open(f"{server.http_url}/#t={tokens.gm}")
    strip = gm.get_by_test_id("presence")
    expect(strip).to_contain_text("At the table:", timeout=10_000)
    expect_here(gm, "gm", True)
    expect_here(gm, "ann", False)
    expect(seat(gm, "ann")).to_contain_text("Ann (away)")
    expect(seat(gm, "gm")).to_contain_text("the GM (you)")

    ann, _ = pages.open(f"{server.http_url}/#t={tokens.seats['ann']}")
    expect_here(ann, "ann", True, timeout=10_000)  # her page is open and connected
    expect_here(gm, "ann", True)
    expect_here(ann, "gm", True)
    expect(seat(ann, "ann")).to_contain_text("Ann (you) (here)")

    watcher, _ = pages.open(f"{server.http_url}/#t={tokens.spectator}", color_scheme="dark")
    expect(watcher.get_by_test_id("presence")).to_contain_text("1 spectator", timeout=10_000)
    expect(gm.get_by_test_id("presence-spectators")).to_have_text("· 1 spectator", timeout=SECOND)
    expect_here(watcher, "bob", False)
    assert_accessible(watcher, "a spectator's page with who is at the table, dark")
    assert_accessible(gm, "the GM's page with who is at the table")
    screenshot(gm, "presence")

    ann.close()  # her page closes
    expect_here(gm, "ann", False)
    expect_here(watcher, "ann", False)
    watcher.close()
    expect(gm.get_by_test_id("presence-spectators")).to_have_count(0, timeout=SECOND)
    assert pages.errors == []


def test_across_two_processes_on_redis(agon_server: ServerFactory, pages: Pages, redis_url: str) -> None:
    first, second = agon_server(store=redis_url), agon_server(store=redis_url)
    tokens = create(first.ws_url)
    gm, _ = pages.open(f"{first.http_url}/#t={tokens.gm}")
    expect_here(gm, "gm", True, timeout=10_000)
    expect_here(gm, "bob", False)

    bob, _ = pages.open(f"{second.http_url}/#t={tokens.seats['bob']}")
    expect_here(bob, "bob", True, timeout=10_000)
    expect_here(gm, "bob", True)
    expect_here(bob, "gm", True)

    bob.close()
    expect_here(gm, "bob", False)
    assert pages.errors == []
