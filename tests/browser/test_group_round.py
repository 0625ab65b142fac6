"""A short group contest in browsers against a real `agon serve`: Ann's Aria and the GM's Bran against the
GM's orc. Ann declares with a daring and a target, the GM declares for its two, orders the round by daring,
types the faces of Aria's exchange, lends Aria AP from Bran; in round 2, ordered by bid, the orc knocks Aria
out before her turn and she comes back with a final action. Every page shows the sides, the targets and the
order."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Page, expect

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.events import CreateContest
from protocol.messages import Created
from protocol.rulesets import extended as x
from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory


def raid() -> CreateContest:
    return CreateContest(
        ruleset="extended",
        title="Raid on the mill",
        dice="physical",
        setup=x.ExtendedSetup(
            prize="the mill",
            contestants=[
                x.Contestant(id="aria", name="Aria", ability="Sword", rating="15", side="heroes", hero_points=1),
                x.Contestant(id="bran", name="Bran", ability="Spear", rating="12", side="heroes"),
                x.Contestant(id="orc", name="Orc", ability="Axe", rating="12", side="raiders"),
            ],
        ),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"])],
    )


def create(ws_url: str) -> Created:
    """Open the contest from a Python client (in a thread of its own: the page's event loop is Playwright's)."""

    async def run() -> Created:
        client = await AgonClient.connect(ws_url)
        try:
            return await client.create(raid())
        finally:
            await client.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def seal(page: Page, contestant: str, action: str, bid: int) -> None:
    form = page.get_by_test_id(f"intent-{contestant}")
    form.get_by_test_id("intent-action").fill(action)
    form.get_by_test_id("intent-bid").fill(str(bid))
    form.get_by_role("button", name="Seal my intent").click()


def test_a_group_round_in_browsers(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    created = create(server.ws_url)
    gm, _ = pages.open(f"{server.http_url}/#t={created.invitations.gm}")
    ann, _ = pages.open(f"{server.http_url}/#t={created.invitations.seats['ann']}")
    expect(gm.get_by_test_id("role")).to_have_text("GM console")
    for page in (gm, ann):
        expect(page.get_by_test_id("side-heroes")).to_contain_text("Aria")
        expect(page.get_by_test_id("side-raiders")).to_contain_text("Orc")

    # Ann: a reckless charge at the orc (the only opponent, ticked for her); round 1 is fought with the ability
    # her starting AP came from, so the form offers no other before round 2
    form = ann.get_by_test_id("intent-aria")
    expect(form.get_by_label("Use another ability for this exchange")).to_have_count(0)
    form.get_by_label("Daring").select_option("reckless")
    expect(form.locator("input[name=target-orc]")).to_be_checked()
    seal(ann, "aria", "charges the orc", 5)
    # the GM declares for Bran (at the orc) and for the orc (at Aria, its first opponent)
    seal(gm, "bran", "covers Aria", 2)
    seal(gm, "orc", "swings at Aria", 3)
    for page in (gm, ann):
        expect(page.get_by_test_id("group-targets")).to_contain_text("Aria (reckless) → Orc")
        expect(page.get_by_test_id("group-targets")).to_contain_text("Orc (bold) → Aria")

    # ordered by daring: Aria's reckless charge first, then Bran and the orc (bold, the higher bid first)
    gm.get_by_test_id("order-daring").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("group-order")).to_contain_text("Order by daring: Aria [next] → Orc → Bran")

    # Aria 5 against the orc's 16: the orc loses 5
    gm.get_by_test_id("face-actor").fill("5")
    gm.get_by_test_id("face-defender").fill("16")
    gm.get_by_role("button", name="Enter the faces").click()
    ann.get_by_test_id("pass-aria").click()  # a hero point would make it a Critical; Ann keeps hers
    expect(ann.get_by_test_id("ap-orc")).to_have_text("7")

    # the orc's turn: its 19 against Aria's 19, equal dice, a tie
    gm.get_by_test_id("face-actor").fill("19")
    gm.get_by_test_id("face-defender").fill("19")
    gm.get_by_role("button", name="Enter the faces").click()
    ann.get_by_test_id("pass-aria").click()
    expect(gm.get_by_test_id("group-order")).to_contain_text("Bran [next]")

    # Bran lends Aria 3 AP instead of acting: his 3 against a resistance of 3 (its 10 fails): Minor Victory
    lend = gm.get_by_test_id("lend-bran")
    lend.locator("input[name=lend-ap]").fill("3")
    lend.locator("input[name=simple-a]").fill("3")
    lend.locator("input[name=simple-b]").fill("10")
    lend.get_by_role("button", name="Lend AP").click()
    expect(ann.get_by_test_id("ap-aria")).to_have_text("18")
    expect(ann.get_by_test_id("phase")).to_contain_text("Round 2")
    expect(ann.get_by_test_id("intent-aria")).to_be_visible()
    expect(ann.get_by_test_id("intent-aria").get_by_label("Use another ability for this exchange")).to_be_visible()

    # Round 2, ordered by bid: the orc's 7 first; its Critical against Aria's Fumble takes her from 18 to -3
    seal(ann, "aria", "presses on", 1)
    seal(gm, "bran", "holds the line", 1)
    seal(gm, "orc", "an all-out blow", 7)
    gm.get_by_test_id("order-bid").click()
    expect(ann.get_by_test_id("group-order")).to_contain_text("Order by bid: Orc [next]")
    gm.get_by_test_id("face-actor").fill("1")
    gm.get_by_test_id("face-defender").fill("20")
    gm.get_by_role("button", name="Enter the faces").click()
    ann.get_by_test_id("pass-aria").click()  # her hero point would soften the blow; she keeps it
    expect(ann.get_by_test_id("ap-aria")).to_have_text("-3")
    expect(ann.get_by_test_id("group-order")).to_contain_text("Aria [out]")
    expect(ann.get_by_test_id("group-order")).to_contain_text("Bran [next]")  # Aria's turn never comes
    # the GM types the faces of her final action: her 3 against a resistance of 3 (its 10 fails): Minor Victory
    final = gm.get_by_test_id("final-aria")
    final.locator("input[name=simple-a]").fill("3")
    final.locator("input[name=simple-b]").fill("10")
    final.get_by_role("button", name="Take the final action").click()
    expect(ann.get_by_test_id("ap-aria")).to_have_text("4")  # back with 1/4 of her 15 starting AP
    expect(ann.get_by_test_id("side-heroes")).to_contain_text("final action used")
    assert_accessible(ann, "a group contest, player page")
    assert_accessible(gm, "a group contest, GM console")
    screenshot(gm, "group-round")
    assert pages.errors == []
