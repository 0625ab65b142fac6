"""The browser client names the contest it follows in its WebSocket URL (``/ws?contest=ID``), read from the
invitation's token on the first visit and from the saved view on a later one."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import expect

from clients.python import AgonClient
from protocol.messages import Invitations
from tests.browser.conftest import Pages
from tests.e2e.conftest import ServerFactory
from tests.engine.table import duel


async def _created(url: str) -> tuple[str, Invitations]:
    gm = await AgonClient.connect(url)
    created = await gm.create(duel())
    await gm.close()
    return created.contest, created.invitations


def test_the_page_names_the_contest_it_follows_in_the_websocket_url(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    with ThreadPoolExecutor(1) as pool:  # the Python client runs its own event loop in a thread of its own
        contest, invitations = pool.submit(asyncio.run, _created(server.ws_url)).result()
    named = f"ws://127.0.0.1:{server.port}/ws?contest={contest}"

    page, frames = pages.open(f"{server.http_url}/#t={invitations.seats['ann']}")
    expect(page.get_by_text("Aria").first).to_be_visible()
    assert frames.sockets == [named]
    page.reload()  # a later visit: the contest from the saved view, the same URL
    expect(page.get_by_text("Aria").first).to_be_visible()
    assert frames.sockets[-1] == named

    assert pages.errors == []
