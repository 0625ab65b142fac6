"""The AP chart comes from the view: a spectator who arrives after two exchanges sees both, with AP hidden
where it was hidden then, and the replay viewer draws the chart at the version it is scrubbed to."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from protocol.events import Declare
from protocol.rulesets import extended as x
from tests.browser.conftest import assert_accessible
from tests.e2e.conftest import ServerFactory
from tests.e2e.table import seated_duel
from tests.net.duel import ARIA_WINS

ORC_WINS: list[int | None] = [2, 15]  # the Orc's exchange: the Orc succeeds, Aria fails


def ap(view: dict[str, Any]) -> dict[str, int]:
    return {c["name"]: c["ap"] for c in view["rules"]["contestants"]}


async def two_exchanges(server_url: str) -> dict[str, Any]:
    """A duel after two exchanges (each side loses AP once): the tokens, and the AP as the GM saw it."""
    table = await seated_duel(server_url)
    contest, invitations, gm, ann, bob = table.contest, table.created.invitations, table.gm, table.ann, table.bob
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    first = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    await gm.command(contest, x.Roll(faces=ORC_WINS))
    start = ap((await gm.timeline(contest, at=1)).view)
    after_one = ap((await gm.timeline(contest, at=first.version)).view)
    after_two = ap((await gm.timeline(contest)).view)
    await table.close()
    return {
        "gm": invitations.gm,
        "spectator": invitations.spectator,
        "first": first.version,
        "ap": [start, after_one, after_two],
    }


def rows(page: Page) -> list[list[str]]:
    table = page.get_by_test_id("ap-chart").locator("tbody tr")
    return [[cell.strip() for cell in row.locator("th, td").all_inner_texts()] for row in table.all()]


def test_a_late_spectator_and_the_replay_viewer_see_the_whole_chart(
    agon_server: ServerFactory, tmp_path: Path, browser: Browser
) -> None:
    server = agon_server(store=f"sqlite:{tmp_path / 'chart.sqlite3'}")
    with ThreadPoolExecutor(1) as pool:
        played = pool.submit(asyncio.run, two_exchanges(server.ws_url)).result()
    start, one, two = played["ap"]
    assert one["Orc"] < start["Orc"] and one["Aria"] == start["Aria"] and two["Aria"] < start["Aria"]

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server.http_url}/#t={played['spectator']}")
        expect(page.get_by_test_id("ap-chart").locator("tbody tr")).to_have_count(3)
        # Aria's AP had not changed after the first exchange: hidden there, as her AP was
        assert rows(page) == [
            ["0", "hidden", "hidden"],
            ["1", "hidden", str(one["Orc"])],
            ["2", str(two["Aria"]), str(two["Orc"])],
        ]
        expect(page.get_by_test_id("ap-chart").locator("canvas")).to_have_count(1)

        page.goto(f"{server.http_url}/#t={played['gm']}&replay")
        expect(page.get_by_test_id("verification")).to_be_visible()
        page.get_by_test_id("scrubber").fill(str(played["first"]))
        expect(page.get_by_role("heading", name=re.compile(f"Version {played['first']} of"))).to_be_visible()
        expect(page.get_by_test_id("ap-chart").locator("tbody tr")).to_have_count(2)
        assert rows(page) == [["0", str(start["Aria"]), str(start["Orc"])], ["1", str(one["Aria"]), str(one["Orc"])]]
        page.get_by_label("Seen as").select_option("~spectator")
        expect(page.get_by_test_id("ap-chart").locator("tbody tr").first).to_contain_text("hidden")
        assert rows(page) == [["0", "hidden", "hidden"], ["1", "hidden", str(one["Orc"])]]
        assert_accessible(page, "replay viewer with the AP chart")
    finally:
        context.close()
