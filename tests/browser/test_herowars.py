"""A Hero Wars contest in browsers against a real `agon serve`: created through the form with the optional
rule, sealed bids, the winner × loser tables, a tie the GM settles in the console, and the outcome on every
page."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_contest import expect_ap, faces, link_of
from tests.browser.test_group_round import MOVE_BOX, no_empty_move_box
from tests.e2e.conftest import ServerFactory

SEALED_BID = "ford-charge-5b21e0"  # Ann's sealed intent: nobody else sees it before the reveal


def create_herowars(page: Page) -> None:
    page.get_by_test_id("new-contest").click()
    page.get_by_label("Ruleset", exact=True).select_option("herowars")
    page.get_by_label("Title", exact=True).fill("At the ford")
    page.get_by_label("Dice", exact=True).select_option("physical")
    page.get_by_label("Prize", exact=True).fill("the ford")
    page.get_by_label("Optional rule: no loss or transfer above three times the bid").check()
    for i, (name, ability, player) in enumerate([("Erik", "Sword", "Ann"), ("Jonas", "Spear", "Bob")]):
        page.locator(f"input[name=c{i}-name]").fill(name)
        page.locator(f"input[name=c{i}-ability]").fill(ability)
        page.locator(f"input[name=c{i}-rating]").fill("15")
        page.locator(f"input[name=c{i}-player]").fill(player)
    assert_accessible(page, "herowars creation form")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("role")).to_have_text("GM console")


def bid(page: Page, contestant: str, intent: str, amount: int) -> None:
    form = page.get_by_test_id(f"intent-{contestant}")
    form.get_by_test_id("intent-action").fill(intent)
    form.get_by_test_id("intent-bid").fill(str(amount))
    form.get_by_role("button", name=re.compile("Seal my bid|Replace")).click()


def test_a_herowars_contest_is_played_in_browsers(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create_herowars(gm)
    ann, _ = pages.open(link_of(gm, "invite-ann"))
    bob, bob_frames = pages.open(link_of(gm, "invite-bob"))
    everyone = [gm, ann, bob]
    expect(ann.get_by_test_id("phase")).to_contain_text("Bids (sealed)")

    # Round 1: sealed bids, revealed together; each limit said beside its bid before anything is sent
    expect(ann.get_by_test_id("intent-erik").get_by_text("At most 15 AP")).to_be_visible()
    bid(ann, "erik", SEALED_BID, 10)
    expect(ann.get_by_test_id("sealed-erik")).to_contain_text("waiting for 1 other")
    assert SEALED_BID not in bob.content() and not [f for f in bob_frames.received if SEALED_BID in f]
    bid(bob, "jonas", "hold the ford", 3)
    for page in everyone:
        expect(page.get_by_test_id("intents")).to_contain_text(SEALED_BID)
    # the GM may swap the order until the first roll; the players wait for the faces, with no empty box
    expect(gm.get_by_test_id("swap-order")).to_contain_text("Only before the round's first roll.")
    for page in (ann, bob):
        expect(page.locator(MOVE_BOX)).to_be_hidden()
        expect(page.get_by_test_id("waiting-for")).to_contain_text("Waiting for Erik's exchange")
    for page in everyone:
        no_empty_move_box(page)

    # Erik's exchange: Success (6) against a higher Success (12): 10 doubled, halved by Jonas's Success
    faces(gm, 6, 12, ann, bob)
    expect_ap(everyone, "jonas", ["5", "5", "5"])
    expect(ann.get_by_test_id("last")).to_contain_text("Jonas loses 10 AP")
    expect(gm.get_by_test_id("swap-order")).to_have_count(0)
    expect(gm.get_by_test_id("confirm")).to_have_count(0)  # no answer awaited: nothing to confirm

    # Jonas's exchange: both Critical, a tie; the GM names the result from the stated intents
    faces(gm, 1, 1, ann, bob)
    for page in everyone:
        expect(page.get_by_test_id("tied")).to_be_visible()
    expect(ann.get_by_test_id("settle-tie")).to_have_count(0)  # only the GM settles a tie
    for page in everyone:
        no_empty_move_box(page)
    tie = gm.get_by_test_id("settle-tie")
    tie.get_by_label("Winner", exact=True).select_option("erik")
    tie.get_by_test_id("tie-loss").fill("3")
    tie.get_by_test_id("tie-reason").fill("Erik holds the ford")
    assert_accessible(gm, "herowars GM console, tie")
    screenshot(gm, "herowars-tie")
    tie.get_by_role("button", name="Settle the tie").click()
    expect_ap(everyone, "jonas", ["2", "2", "2"])
    expect(bob.get_by_test_id("phase")).to_contain_text("Round 2")

    # Round 2: Erik fumbles against Jonas's Success: 40, capped at 30 by the optional rule
    bid(ann, "erik", "leap across", 10)
    bid(bob, "jonas", "brace", 1)
    faces(gm, 20, 8, ann, bob)
    for page in everyone:
        expect(page.get_by_test_id("outcome")).to_contain_text("Jonas wins")
        expect(page.get_by_test_id("outcome")).to_contain_text("Erik ends at -15 AP: Minor defeat, Impaired")
    expect(ann.get_by_test_id("last")).to_contain_text("capped at three times the bid")
    screenshot(ann, "herowars-outcome")
    assert pages.errors == [], pages.errors
