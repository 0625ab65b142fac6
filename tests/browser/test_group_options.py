"""A group round's options in browsers against a real `agon serve`, with physical dice and players typing the
faces of their own simple contests: Ann's Aria and the GM's Bran against the GM's orc, goblin and rat. Aria
delays and jumps back in, Bran knocks the goblin out and takes a parting shot before he engages the orc, Aria
disengages and rejoins, an
old friend outside the contest gifts her AP, the orc fails to disengage, and the rat falls attacking Aria, who
lets it go. The player's page, the GM's console and a spectator's page show the order marks, who is out or
withdrawn, and the AP.

Every number comes from the seed's tables (000 §5.3) and the faces typed: the exchange table 5.3.1.1, the
parting shot §5.3.4, disengaging 5.3.10.1, gifting 5.3.12.1; the simple contests' levels of victory by
steps (RULES.md §1)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Page, expect

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.events import CreateContest
from protocol.messages import Invitations
from protocol.rulesets import extended as x
from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_group_round import MOVE_BOX, no_empty_move_box, seal
from tests.e2e.conftest import ServerFactory

AMBUSH = x.ExtendedSetup(
    prize="the ford",
    players_type_faces=True,
    contestants=[
        x.Contestant(id=name.lower(), name=name, ability=ability, rating=rating, side=side)
        for name, ability, rating, side in (
            ("Aria", "Sword", "15", "heroes"),
            ("Bran", "Spear", "12", "heroes"),
            ("Orc", "Axe", "12", "raiders"),
            ("Goblin", "Knife", "6", "raiders"),
            ("Rat", "Bite", "2", "raiders"),
        )
    ],
)
SEATS = [Seat("gm", "gm"), Seat("ann", "player", ["aria"])]


async def invitations(ws_url: str) -> Invitations:
    client = await AgonClient.connect(ws_url)
    try:
        ambush = CreateContest(
            ruleset="extended", title="Ambush at the ford", dice="physical", setup=AMBUSH, seats=SEATS
        )
        return (await client.create(ambush)).invitations
    finally:
        await client.close()


def open_ambush(agon_server: ServerFactory, pages: Pages) -> tuple[Page, Page, Page]:
    """A real server with the ambush, and the pages of the GM, Ann and a spectator."""
    server = agon_server()
    with ThreadPoolExecutor(1) as pool:  # a thread of its own: the pages' event loop is Playwright's
        links = pool.submit(asyncio.run, invitations(server.ws_url)).result()
    gm, _ = pages.open(f"{server.http_url}/#t={links.gm}")
    ann, _ = pages.open(f"{server.http_url}/#t={links.seats['ann']}")
    watcher, _ = pages.open(f"{server.http_url}/#t={links.spectator}")
    return gm, ann, watcher


def faces(page: Page, actor: int, defender: int) -> None:
    page.get_by_test_id("face-actor").fill(str(actor))
    page.get_by_test_id("face-defender").fill(str(defender))
    page.get_by_role("button", name="Enter the faces").click()


def simple(form_page: Page, testid: str, mine: int, theirs: int, button: str) -> None:
    form = form_page.get_by_test_id(testid)
    form.locator("input[name=simple-a]").fill(str(mine))
    form.locator("input[name=simple-b]").fill(str(theirs))
    form.get_by_role("button", name=button).click()


def test_delay_parting_shot_disengage_rejoin_and_gift_in_browsers(agon_server: ServerFactory, pages: Pages) -> None:
    gm, ann, watcher = everyone = open_ambush(agon_server, pages)

    # Aria at the orc (her first opponent) bids 4; Bran 5 at the goblin, then the orc; the orc 3, the rat 2, the
    # goblin 1 at Aria
    seal(ann, "aria", "holds the ford", 4)
    bran = gm.get_by_test_id("intent-bran")
    bran.locator("input[name=target-orc]").uncheck()
    bran.locator("input[name=target-goblin]").check()
    bran.locator("input[name=target-orc]").check()
    seal(gm, "bran", "spears the goblin", 5)
    seal(gm, "orc", "hacks at Aria", 3)
    seal(gm, "goblin", "stabs at Aria", 1)
    seal(gm, "rat", "bites Aria", 2)
    gm.get_by_test_id("order-bid").click()
    for page in everyone:
        expect(page.get_by_test_id("group-order")).to_have_text("Order by bid: Bran [next] → Aria → Orc → Rat → Goblin")

    # Aria delays: she goes to the end of the round
    ann.get_by_test_id("delay-aria").click()
    for page in everyone:
        expect(page.get_by_test_id("group-order")).to_have_text(
            "Order by bid: Bran [next] → Orc → Rat → Goblin → Aria [delaying]"
        )
        expect(page.get_by_test_id("side-heroes")).to_contain_text("Aria (delaying)")

    # Bran's 4 is a Success (TN 12), the goblin's 20 a Fumble: the loser loses 2 × 5 = 10, from 6 to -4
    faces(gm, 4, 20)
    for page in everyone:
        expect(page.get_by_test_id("ap-goblin")).to_have_text("-4")
        expect(page.get_by_test_id("side-raiders")).to_contain_text("Goblin (out)")
        expect(page.get_by_test_id("shot-open-bran")).to_have_text("Bran may take a parting shot at Goblin.")
    expect(ann.get_by_test_id("shot-bran")).to_have_count(0)  # the GM's victor: no control on Ann's page
    # the GM settles the shot before Bran goes on to the orc: the step says so, and no faces before it
    expect(gm.get_by_test_id("shot-step-bran").locator(".step-say")).to_have_text(
        "Bran may take a parting shot at Goblin before the next turn: take it or let Goblin go."
    )
    expect(gm.get_by_test_id("face-actor")).to_have_count(0)
    expect(gm.get_by_test_id("shot-bran").get_by_label("Bid")).to_have_accessible_description(
        "At most 12 AP (at least 1); empty: 3."
    )
    for page in everyone:
        no_empty_move_box(page)

    # Bran's parting shot, bid 2, before he engages the orc: his 6 (Success) against the goblin's 11 (Failure,
    # TN 6): it loses 1 × 2 more
    shot = gm.get_by_test_id("shot-bran")
    shot.get_by_label("Bid").fill("2")
    shot.get_by_role("button", name="Take the parting shot").click()
    for page in everyone:
        expect(page.get_by_test_id("shot-under-way")).to_have_text("Bran takes a parting shot at Goblin.")
    # the shot's second die is the goblin's, though the orc is the next target of Bran's turn
    expect(gm.get_by_test_id("face-defender")).to_have_accessible_name("Goblin's die")
    expect(gm.get_by_test_id("pass-turn-bran")).to_have_count(0)  # the shot is rolled, not passed
    faces(gm, 6, 11)
    for page in everyone:
        expect(page.get_by_test_id("ap-goblin")).to_have_text("-6")
        expect(page.get_by_test_id("shot-under-way")).to_have_count(0)
    # then the orc: both roll 19, Failures (TN 12) with equal dice: a tie, no AP moves
    expect(gm.get_by_test_id("face-defender")).to_have_accessible_name("Orc's die")
    faces(gm, 19, 19)

    # Aria jumps back in: she acts next, before the orc
    ann.get_by_test_id("jump-aria").click()
    for page in everyone:
        expect(page.get_by_test_id("group-order")).to_have_text(
            "Order by bid: Bran [acted] → Aria [next] → Orc → Rat → Goblin [out]"
        )

    # Aria disengages from the orc: her 3 and its 10 are both Successes (TN 15 and 12), the lower roll wins:
    # a Marginal Victory, and any victory leaves the contest (5.3.10) with her 15 AP
    ann.get_by_text("Aria: disengage instead of acting").click()  # folded below the roll: an alternative to it
    simple(ann, "disengage-aria", 3, 10, "Try to disengage")
    for page in everyone:
        expect(page.get_by_test_id("side-heroes")).to_contain_text("Aria (withdrawn)")
        expect(page.get_by_test_id("group-order")).to_contain_text("Aria [acted, withdrawn] → Orc [next]")
    expect(ann.get_by_test_id("ap-aria")).to_have_text("15")
    expect(watcher.get_by_test_id("ap-aria")).to_have_text("?")  # unchanged: still hidden from a spectator

    # she rejoins with the AP she left with; her turn this round is spent
    ann.get_by_test_id("rejoin-aria").click()
    for page in everyone:
        expect(page.get_by_test_id("side-heroes")).to_contain_text("Aria (acted)")
    expect(ann.get_by_test_id("ap-aria")).to_have_text("15")

    # Old Tom, outside the contest (14), gifts Aria a bid of 5 against a resistance of 10: his 2 a Success,
    # its 12 a Failure: a Minor Victory, Aria gains the bid (table 5.3.12.1): 20
    gm.get_by_text("Gift AP from someone outside the contest").click()
    gift = gm.get_by_test_id("gift")
    for label, typed in (("Giver (not in the contest)", "Old Tom"), ("Giver's rating", "14"), ("Bid", "5")):
        gift.get_by_label(label).fill(typed)
    gift.get_by_label("Recipient").select_option("aria")
    gift.get_by_label("Opponent").select_option("orc")
    simple(gm, "gift", 2, 12, "Give")
    for page in everyone:
        expect(page.get_by_test_id("ap-aria")).to_have_text("20")

    # the orc tries to disengage from Bran: its 15 a Failure (TN 12) against Bran's 5, a Success: a Minor
    # Defeat, it stays and gives Bran 1/4 of its 12 AP (5.3.10.1): 3
    gm.get_by_text("Orc: disengage instead of acting").click()
    gm.get_by_test_id("disengage-orc").get_by_label("From").select_option("bran")
    simple(gm, "disengage-orc", 15, 5, "Try to disengage")
    for page in everyone:
        expect(page.get_by_test_id("ap-orc")).to_have_text("9")
        expect(page.get_by_test_id("ap-bran")).to_have_text("15")

    # the rat's 15 is a Failure (TN 2) against Aria's 3, a Success: it loses 1 × 2, from 2 to 0, and is out;
    # Ann lets the result stand, then lets the rat go rather than take a parting shot
    faces(gm, 15, 3)
    ann.get_by_test_id("pass-aria").click()
    for page in everyone:
        expect(page.get_by_test_id("ap-rat")).to_have_text("0")
        expect(page.get_by_test_id("shot-open-aria")).to_have_text(
            "Aria may take a parting shot at Rat: the round waits for it."
        )
        expect(page.get_by_test_id("phase")).to_contain_text("Round 1")  # the round waits for her choice
    # Ann's to choose; the GM is told whom the round waits for, and may let the rat go if she does not answer
    expect(gm.get_by_test_id("shot-waiting-aria").locator(".step-say")).to_have_text(
        "Waiting for Aria's player to take a parting shot at Rat or let Rat go. "
        "If they do not answer, you can let Rat go for them."
    )
    expect(gm.get_by_test_id("decline-aria")).to_have_text("Let Rat go")
    expect(ann.get_by_test_id("shot-step-aria").locator(".step-say")).to_have_text(
        "Waiting for Aria's parting shot at Rat: take it or let Rat go."
    )
    expect(ann.get_by_test_id("shot-aria").get_by_text("At most 20 AP")).to_be_visible()  # her 20 AP now
    for page in everyone:
        no_empty_move_box(page)
    ann.get_by_test_id("decline-aria").click()
    for page in everyone:
        expect(page.get_by_test_id("phase")).to_contain_text("Round 2")  # everyone still in has acted
        expect(page.get_by_test_id("side-raiders")).to_contain_text("Orc (in), Goblin (out), Rat (out)")
    expect(watcher.get_by_test_id("ap-rat")).to_have_text("0")
    expect(ann.get_by_test_id("intent-aria")).to_be_visible()
    for page in everyone:
        no_empty_move_box(page)
    assert_accessible(ann, "group options, player page")
    assert_accessible(gm, "group options, GM console")
    assert_accessible(watcher, "group options, spectator page")
    screenshot(gm, "group-options")
    assert pages.errors == []


async def decided_ambush(ws_url: str) -> Invitations:
    """The ambush, after the GM took every raider down to 0 AP or less: side heroes is the last standing."""
    client = await AgonClient.connect(ws_url)
    try:
        ambush = CreateContest(
            ruleset="extended", title="Ambush at the ford", dice="physical", setup=AMBUSH, seats=SEATS
        )
        created = await client.create(ambush)
        await client.follow(created.contest, created.invitations.gm)
        for raider in ("orc", "goblin", "rat"):
            await client.command(created.contest, x.Adjust(contestant=raider, delta=-20, reason="falls in the ford"))
        return created.invitations
    finally:
        await client.close()


def test_a_decided_group_contest_states_its_outcome_once(agon_server: ServerFactory, pages: Pages) -> None:
    """One headline, the winning side's, on every page: not "no winner" beside "side heroes wins"."""
    server = agon_server()
    with ThreadPoolExecutor(1) as pool:
        links = pool.submit(asyncio.run, decided_ambush(server.ws_url)).result()
    for token in (links.gm, links.seats["ann"], links.spectator):
        page, _ = pages.open(f"{server.http_url}/#t={token}")
        outcome = page.get_by_test_id("outcome")
        expect(outcome.get_by_role("heading")).to_have_text("Outcome: side heroes wins the prize")
        expect(outcome).not_to_contain_text("no winner")
        expect(outcome).to_contain_text("raiders: ")
        expect(outcome).to_contain_text("Orc: Marginal defeat, Hurt")
        expect(page.get_by_text("wins the prize")).to_have_count(1)
        if token == links.seats["ann"]:  # nothing left for her to do: no empty box on her page
            expect(page.locator(MOVE_BOX)).to_be_hidden()
        no_empty_move_box(page)
    assert pages.errors == [], pages.errors
