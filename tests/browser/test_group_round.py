"""A short group contest in browsers against a real `agon serve`: Ann's Aria and the GM's Bran against the
GM's orc. Ann declares with a daring and a target, the GM declares for its two, orders the round by daring,
types the faces of Aria's exchange, lends Aria AP from Bran; in round 2, ordered by bid, the orc knocks Aria
out before her turn and she comes back with a final action. Every page shows the sides, the targets and the
order; the GM's console shows each step's controls only in their step (the order before the first roll, never
with Roll before it), and a parting shot still open is settled before the next exchange. A second contest's
round waits for the GM's parting shot until the GM lets it go."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Page, expect

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.events import CreateContest, Declare
from protocol.messages import Created, Follow
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


MOVE_BOX = 'section[aria-labelledby="actions-title"]'


def no_empty_move_box(page: Page) -> None:
    """The page's actions box ("Your move", "Run the contest") is shown only holding a control."""
    empty: int = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
          .filter((box) => box.getClientRects().length > 0)
          .filter((box) => !box.querySelector('button, input, select, textarea, summary'))
          .length""",
        MOVE_BOX,
    )
    assert empty == 0, f"{page.url}: an actions box with no control in it"


def above(page: Page, first: str, second: str) -> bool:
    """Whether the element with test id ``first`` comes before the one with ``second`` in the page."""
    return bool(
        page.evaluate(
            """([a, b]) => {
              const [x, y] = [a, b].map((id) => document.querySelector(`[data-testid="${id}"]`));
              return Boolean(x && y && (x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING));
            }""",
            [first, second],
        )
    )


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
        expect(page.get_by_test_id("side-heroes")).to_contain_text("heroes: Aria (")
        expect(page.get_by_test_id("side-raiders")).to_contain_text("Orc")

    # Ann: a reckless charge at the orc (the only opponent, ticked for her); round 1 is fought with the ability
    # her starting AP came from, so the form offers no other before round 2. Her limit is said next to her bid,
    # before anything is sent: her 15 starting AP; the orc's, the GM's, is its own 12
    form = ann.get_by_test_id("intent-aria")
    expect(form.get_by_label("Use another ability for this exchange")).to_have_count(0)
    expect(form.get_by_text("At most 15 AP")).to_be_visible()
    expect(form.get_by_test_id("intent-bid")).to_have_accessible_description(re.compile("At most 15 AP"))
    assert form.get_by_test_id("intent-bid").get_attribute("title") is None
    expect(gm.get_by_test_id("intent-orc").get_by_text("At most 12 AP")).to_be_visible()
    form.get_by_label("Daring").select_option("reckless")
    expect(form.locator("input[name=target-orc]")).to_be_checked()
    seal(ann, "aria", "charges the orc", 5)
    expect(ann.get_by_test_id("sealed-aria")).to_contain_text("reckless, singling out Orc")  # its name
    # the GM declares for Bran (at the orc) and for the orc (at Aria, its first opponent)
    seal(gm, "bran", "covers Aria", 2)
    seal(gm, "orc", "swings at Aria", 3)
    for page in (gm, ann):
        expect(page.get_by_test_id("group-targets")).to_contain_text("Aria (reckless) → Orc")
        expect(page.get_by_test_id("group-targets")).to_contain_text("Orc (bold) → Aria")

    # revealed, not yet ordered: the GM's console offers the order, and no roll before it; Ann reads what the
    # round waits for
    expect(gm.get_by_test_id("step-order")).to_be_visible()
    expect(gm.get_by_test_id("order-daring")).to_be_visible()
    expect(gm.get_by_test_id("face-actor")).to_have_count(0)
    expect(gm.get_by_test_id("step-roll")).to_have_count(0)
    expect(ann.get_by_test_id("waiting-for")).to_have_text("Waiting for the GM to order the round and start it.")
    for page in (gm, ann):  # whose move: the GM's, not Aria's (first in the order as it stands)
        expect(page.get_by_test_id("whose-move")).to_contain_text("order round 1")
    expect(gm.get_by_test_id("whose-move")).to_have_text("Your move: order round 1")
    for page in (gm, ann):
        no_empty_move_box(page)
    screenshot(gm, "group-round-order")

    # ordered by daring: Aria's reckless charge first, then Bran and the orc (bold, the higher bid first); until
    # the first roll the GM may order it again, above the roll
    gm.get_by_test_id("order-daring").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("group-order")).to_contain_text("Order by daring: Aria [next] → Orc → Bran")
    expect(gm.get_by_test_id("step-order")).to_contain_text("Round 1 is ordered by daring")
    expect(gm.get_by_test_id("face-actor")).to_be_visible()
    assert above(gm, "step-order", "step-roll"), "the order comes before the roll"
    expect(ann.get_by_test_id("waiting-for")).to_have_text(
        "Waiting for Aria's exchange: the GM types the faces rolled at the table."
    )

    # Aria 5 against the orc's 16: the orc loses 5
    gm.get_by_test_id("face-actor").fill("5")
    gm.get_by_test_id("face-defender").fill("16")
    gm.get_by_role("button", name="Enter the faces").click()
    # the dice are down: the GM may apply the exchange without waiting, Ann answers; no order any more
    expect(gm.get_by_test_id("order-daring")).to_have_count(0)
    expect(gm.get_by_test_id("confirm")).to_be_visible()
    ann.get_by_test_id("pass-aria").click()  # a hero point would make it a Critical; Ann keeps hers
    expect(ann.get_by_test_id("ap-orc")).to_have_text("7")
    expect(gm.get_by_test_id("confirm")).to_have_count(0)  # nobody's answer awaited any more
    expect(gm.get_by_test_id("step-order")).to_have_count(0)
    for page in (gm, ann):
        no_empty_move_box(page)

    # the orc's turn: its 19 against Aria's 19, equal dice, a tie
    gm.get_by_test_id("face-actor").fill("19")
    gm.get_by_test_id("face-defender").fill("19")
    gm.get_by_role("button", name="Enter the faces").click()
    ann.get_by_test_id("pass-aria").click()
    expect(gm.get_by_test_id("group-order")).to_contain_text("Bran [next]")

    # Bran lends Aria 3 AP instead of acting: his 3 against a resistance of 3 (its 10 fails): Minor Victory;
    # he can lend at most his own 12 AP, said by the field
    gm.get_by_text("Bran: lend AP instead of acting").click()  # folded below the roll: an alternative to it
    lend = gm.get_by_test_id("lend-bran")
    expect(lend.locator("input[name=lend-ap]")).to_have_accessible_description(re.compile("At most 12 AP"))
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
    # the orc may take a parting shot at her before Bran's turn: the GM settles it before rolling Bran's exchange
    expect(gm.get_by_test_id("shot-step-orc")).to_contain_text(
        "Orc may take a parting shot at Aria before the next turn: take it or let Aria go."
    )
    expect(gm.get_by_test_id("face-actor")).to_have_count(0)
    expect(ann.get_by_test_id("shot-open-orc")).to_have_text("Orc may take a parting shot at Aria.")
    expect(ann.get_by_test_id("shot-orc")).to_have_count(0)
    # out, with nothing Ann's to do (the GM types the faces at this table): her page shows no empty box
    expect(ann.locator(MOVE_BOX)).to_be_hidden()
    no_empty_move_box(gm)
    # the GM types the faces of her final action: her 3 against a resistance of 3 (its 10 fails): Minor Victory;
    # its title says what it costs and what is left
    final = gm.get_by_test_id("final-aria")
    expect(final).to_contain_text("a final action costs a hero point (1 left)")
    final.locator("input[name=simple-a]").fill("3")
    final.locator("input[name=simple-b]").fill("10")
    final.get_by_role("button", name="Take the final action").click()
    expect(ann.get_by_test_id("ap-aria")).to_have_text("4")  # back with 1/4 of her 15 starting AP
    expect(ann.get_by_test_id("side-heroes")).to_contain_text("final action used")
    # the GM lets Aria go: Bran's exchange is next, against the orc
    gm.get_by_test_id("decline-orc").click()
    expect(gm.get_by_test_id("shot-step-orc")).to_have_count(0)
    expect(gm.get_by_test_id("face-defender")).to_have_accessible_name("Orc's die")
    assert_accessible(ann, "a group contest, player page")
    assert_accessible(gm, "a group contest, GM console")
    screenshot(gm, "group-round")
    assert pages.errors == []


def mill(ws_url: str) -> dict[str, str]:
    """A group contest at the mill, its intents declared: Ann's Aria and the GM's Bran (3 AP) against the GM's Grisk
    the Orc, who singles out Bran. The links: the GM's and Ann's."""

    async def run() -> dict[str, str]:
        gm = await AgonClient.connect(ws_url)
        created = await gm.create(
            CreateContest(
                ruleset="extended",
                title="Night at the mill",
                dice="physical",
                setup=x.ExtendedSetup(
                    prize="the mill",
                    contestants=[
                        x.Contestant(id="aria", name="Aria", ability="Sword", rating="15", side="heroes"),
                        x.Contestant(id="bran", name="Bran", ability="Spear", rating="3", side="heroes"),
                        x.Contestant(id="grisk", name="Grisk the Orc", ability="Axe", rating="12", side="raiders"),
                    ],
                ),
                seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"], name="Ann")],
            )
        )
        contest, links = created.contest, created.invitations
        await gm.follow(contest, links.gm)
        ann = await AgonClient.connect(ws_url, follow=[Follow(contest, links.seats["ann"])])
        try:
            intent = x.Intent(action="feints", bid=2, targets=["grisk"])
            await ann.command(contest, Declare(participant="aria", payload=intent))
            intent = x.Intent(action="holds the door", bid=1, targets=["grisk"])
            await gm.command(contest, Declare(participant="bran", payload=intent))
            intent = x.Intent(action="smashes Bran", bid=3, targets=["bran"])
            await gm.command(contest, Declare(participant="grisk", payload=intent))
        finally:
            await ann.close()
            await gm.close()
        return {"gm": links.gm, "ann": links.seats["ann"]}

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def faces(page: Page, actor: int, defender: int) -> None:
    page.get_by_test_id("face-actor").fill(str(actor))
    page.get_by_test_id("face-defender").fill(str(defender))
    page.get_by_role("button", name="Enter the faces").click()


def test_a_round_waits_for_the_gms_parting_shot_until_the_gm_settles_it(
    agon_server: ServerFactory, pages: Pages
) -> None:
    server = agon_server()
    links = mill(server.ws_url)
    gm, _ = pages.open(f"{server.http_url}/#t={links['gm']}")
    ann, _ = pages.open(f"{server.http_url}/#t={links['ann']}")

    # the GM keeps the order as it stands (set by hand): then, and only then, the faces of Aria's exchange
    expect(gm.get_by_test_id("order-keep")).to_be_visible()
    expect(gm.get_by_test_id("face-actor")).to_have_count(0)
    expect(ann.get_by_test_id("waiting-for")).to_have_text("Waiting for the GM to order the round and start it.")
    for page in (gm, ann):  # whose move: the GM's, not Aria's (first in the order as it stands)
        expect(page.get_by_test_id("whose-move")).to_contain_text("order round 1")
    expect(gm.get_by_test_id("whose-move")).to_have_text("Your move: order round 1")
    gm.get_by_test_id("order-keep").click()
    expect(gm.get_by_test_id("step-order")).to_contain_text("Round 1 is ordered by hand")
    expect(gm.get_by_test_id("face-actor")).to_be_visible()
    # the order kept by hand is in the view: Ann's page no longer says it waits for one, and a reloaded GM page
    # still knows the round is ordered
    expect(ann.get_by_text("Waiting for the GM to order the round")).to_have_count(0)
    gm.reload()
    expect(gm.get_by_test_id("step-order")).to_contain_text("Round 1 is ordered by hand")

    # Aria's 10 against Grisk's 10: two Successes, equal dice, a tie; Ann lets it stand
    faces(gm, 10, 10)
    ann.get_by_test_id("pass-aria").click()
    expect(gm.get_by_test_id("step-order")).to_have_count(0)
    # Bran's 19 against Grisk's 19: two Failures, a tie; then Grisk's 5 (Success, TN 12) against Bran's 15
    # (Failure, TN 3): Bran loses the bid of 3, from 3 to 0, and is out
    expect(gm.get_by_test_id("face-defender")).to_have_accessible_name("Grisk the Orc's die")
    faces(gm, 19, 19)
    expect(gm.get_by_test_id("face-actor")).to_have_accessible_name("Grisk the Orc's die (acting)")
    faces(gm, 5, 15)
    for page in (gm, ann):
        expect(page.get_by_test_id("ap-bran")).to_have_text("0")
        expect(page.get_by_test_id("phase")).to_contain_text("Round 1")  # the round waits for the shot

    # the GM is told whose shot the round waits for, with the controls that settle it and the shot's limit
    step = gm.get_by_test_id("shot-step-grisk")
    expect(step.locator(".step-say")).to_have_text(
        "Waiting for Grisk the Orc's parting shot at Bran: take it or let Bran go."
    )
    expect(step.get_by_test_id("shot-grisk")).to_be_visible()
    expect(step.get_by_test_id("shot-grisk").get_by_text("At most 12 AP")).to_be_visible()
    expect(gm.get_by_test_id("face-actor")).to_have_count(0)
    # Ann has nothing to do: no empty box on her page, and the board says what the round waits for
    expect(ann.get_by_test_id("shot-open-grisk")).to_have_text(
        "Grisk the Orc may take a parting shot at Bran: the round waits for it."
    )
    expect(ann.locator(MOVE_BOX)).to_be_hidden()
    no_empty_move_box(gm)
    assert_accessible(gm, "a round waiting for a parting shot, GM console")
    assert_accessible(ann, "a round waiting for a parting shot, player page")
    screenshot(gm, "group-round-waits-for-a-shot")

    # the GM lets Bran go: the round ends, and the next begins on every page
    step.get_by_test_id("decline-grisk").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("phase")).to_contain_text("Round 2")
    expect(gm.get_by_test_id("shot-step-grisk")).to_have_count(0)
    expect(ann.get_by_test_id("intent-aria")).to_be_visible()
    no_empty_move_box(ann)
    assert pages.errors == [], pages.errors
