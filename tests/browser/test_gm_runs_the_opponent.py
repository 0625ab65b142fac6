"""A contest against an opponent the GM runs: the GM declares for it from the console, proposes a bid the
player accepts, a hero point is offered only when spending it could change the exchange, and every roll
waits for the player to spend one or let the result stand — all of the player's part done by keyboard
alone. A server refusal of the form is explained next to its field, and a spectator who arrives late gets
the story so far."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory


def create(gm: Page) -> None:
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_label("Prize", exact=True).fill("the ford")
    gm.locator("input[name=c0-name]").fill("Aria")
    gm.locator("input[name=c0-ability]").fill("Sword")
    gm.locator("input[name=c0-rating]").fill("15")
    gm.locator("input[name=c0-player]").fill("Ann")
    gm.get_by_text("Modifiers, followers, hero points, edge").first.click()
    gm.locator("input[name=c0-hero]").fill("1")
    gm.locator("input[name=c1-name]").fill("Troll")
    gm.locator("input[name=c1-ability]").fill("Club")
    gm.locator("input[name=c1-rating]").fill("1")
    gm.get_by_text("Modifiers, followers, hero points, edge").nth(1).click()
    gm.locator("input[name=c1-modifier]").fill("-5")
    gm.get_by_test_id("create").click()
    # the server refuses a starting AP below 1: said next to the troll's rating, from its message
    rating = gm.locator("input[name=c1-rating]")
    expect(rating).to_have_attribute("aria-invalid", "true")
    expect(gm.get_by_test_id("create-error")).to_contain_text("Starting AP -4 is below 1.")
    gm.locator("input[name=c1-modifier]").fill("0")
    rating.fill("12")
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


def test_the_gm_runs_the_opponent_and_a_player_plays_by_keyboard(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    expect(gm.get_by_test_id("contestant-troll")).to_contain_text("yours")  # the GM's own contestant
    ann, _ = pages.open(gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")

    # the GM declares for the troll from its console
    troll = gm.get_by_test_id("intent-troll")
    troll.get_by_test_id("intent-action").fill("swings its club")
    troll.get_by_test_id("intent-bid").fill("2")
    troll.get_by_role("button", name="Seal my intent").click()
    expect(ann.get_by_test_id("seal-troll")).to_contain_text("sealed")

    # a refused intent is explained under the form, from the server's message, and changes nothing
    form = ann.get_by_test_id("intent-aria")
    form.get_by_label("Kind").select_option("unrelated")
    form.get_by_label("Resistance (optional)").fill("ZZ")
    form.get_by_role("button", name="Seal my intent").click()
    expect(form.get_by_role("alert")).to_contain_text("write it like 14, 5W or 5W2. Cannot read rating “ZZ”")
    expect(ann.get_by_test_id("seal-aria")).to_contain_text("waiting")
    form.get_by_label("Kind").select_option("normal")

    # Ann, by keyboard alone: type the action, Tab to the bid, Enter seals it
    ann.get_by_test_id("intent-action").focus()
    ann.keyboard.type("wades in")
    ann.keyboard.press("Tab")
    ann.keyboard.type("4")
    ann.keyboard.press("Enter")
    expect(gm.get_by_test_id("intents")).to_contain_text("wades in")

    # the GM proposes a bigger bid; Ann accepts it with the keyboard
    gm.get_by_text("Propose a bid to Aria").click()  # folded, below the roll: the GM's option, not its step
    gm.get_by_label("Bid proposed to Aria").fill("5")
    expect(gm.get_by_label("Bid proposed to Aria")).to_have_accessible_description("At most 15 AP (at least 1).")
    gm.get_by_role("button", name="Propose").click()
    accept = ann.get_by_role("button", name="Accept the proposed bid")
    accept.focus()
    ann.keyboard.press("Enter")
    expect(ann.get_by_test_id("intents")).to_contain_text("bid 5")

    # 16 against 16: Failure against Failure, a tie — a hero point would win it, so Ann is asked
    gm.get_by_test_id("face-actor").fill("16")
    gm.get_by_test_id("face-defender").fill("16")
    gm.get_by_role("button", name="Enter the faces").click()
    spend = ann.get_by_test_id("spend-aria")
    expect(spend).to_be_visible()
    expect(ann.get_by_test_id("exchange")).to_contain_text("Aria rolled 16: Failure")
    assert_accessible(ann, "player page, hero point")
    screenshot(ann, "player-hero-point")
    spend.focus()
    ann.keyboard.press("Enter")
    expect(ann.get_by_test_id("ap-troll")).to_have_text("7")
    expect(ann.get_by_test_id("hero-aria")).to_have_text("0")
    expect(ann.get_by_test_id("last")).to_contain_text("Troll loses 5 AP")

    # the troll's exchange: a Critical against Aria's Success; Aria has no hero point left: Ann is asked only
    # to let the result stand (as she would be holding one), and clicks it
    gm.get_by_test_id("face-actor").fill("1")
    gm.get_by_test_id("face-defender").fill("10")
    gm.get_by_role("button", name="Enter the faces").click()
    stand = ann.get_by_role("button", name="Let it stand")
    expect(stand).to_be_visible()
    expect(ann.get_by_test_id("spend-aria")).to_have_count(0)
    expect(gm.get_by_test_id("answers-pending")).to_contain_text("Waiting for Aria to let the result stand")
    expect(ann.get_by_test_id("ap-aria")).to_have_text("15")  # nothing applied before Ann answers
    stand.click()
    expect(ann.get_by_test_id("phase")).to_contain_text("Round 2")
    expect(ann.get_by_role("button", name="Let it stand")).to_have_count(0)
    expect(ann.get_by_test_id("ap-aria")).to_have_text("13")

    # a spectator arriving now gets the story so far
    watcher, _ = pages.open(gm.get_by_test_id("invite-spectator").locator("input.link").input_value())
    expect(watcher.get_by_role("log").or_(watcher.locator(".log-list"))).to_contain_text(
        re.compile("troll loses 5 AP", re.IGNORECASE)
    )

    # the server restarts: every page says so, reconnects by itself and resumes where it was
    server.terminate()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("connection")).to_contain_text("Reconnecting")
    server.start()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("connection")).to_have_text("Connected", timeout=15_000)
    expect(watcher.get_by_test_id("ap-aria")).to_have_text("13")

    # the GM closes round 2's window with nothing declared: the default intents are revealed
    gm.get_by_test_id("close-window").click()
    expect(ann.get_by_test_id("intents")).to_contain_text("(no action described), bid 3")

    # the GM adjusts the troll's AP with a reason: it falls, and everyone sees the outcome
    gm.get_by_text("Adjust AP").click()
    gm.get_by_label("Contestant").select_option("troll")
    gm.get_by_label("Change (+/−)").fill("-20")
    gm.get_by_label("Reason").fill("swept away by the ford")
    gm.get_by_role("button", name="Adjust", exact=True).click()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("outcome")).to_contain_text("Aria wins")
    expect(watcher.locator(".log-list")).to_contain_text(re.compile("swept away by the ford"))
    assert_accessible(gm, "GM console with the outcome")
    unexpected = [e for e in pages.errors if "ERR_CONNECTION_REFUSED" not in e]  # the restart's refusals only
    assert unexpected == [], unexpected
