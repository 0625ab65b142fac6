"""A Karbon scene in browsers against a real `agon serve`: the GM creates it through the form with physical
dice, the player joins by link; both see the pool, the hands as dice, the chips and the victory track, and a
round is played to a break the player picks with a button; the next contest's numbers come from the seed's guides."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory


def create_scene(page: Page) -> None:
    page.get_by_test_id("new-contest").click()
    page.get_by_label("Ruleset", exact=True).select_option("karbon")
    page.get_by_label("Title", exact=True).fill("The docks at night")
    page.get_by_label("Dice", exact=True).select_option("physical")
    page.get_by_test_id("agent-name").fill("Vera")
    page.get_by_test_id("agent-player").fill("Ann")
    assert_accessible(page, "karbon creation form")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("role")).to_have_text("GM console")


def test_a_karbon_round_is_played_in_browsers(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create_scene(gm)
    link = gm.get_by_test_id("invite-ann").locator("input.link").input_value()
    ann, _ = pages.open(link)
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(ann.get_by_test_id("pool").locator("li.die")).to_have_count(15)
    expect(ann.get_by_test_id("reserve").locator("li.die")).to_have_count(5)

    # the GM sets up a contest and enters the hands drawn at the table
    start = gm.get_by_test_id("start-contest")
    start.get_by_test_id("goal").fill("slip past the guards")
    start.get_by_test_id("ability").fill("Stealth")
    start.get_by_test_id("level").fill("5")
    start.get_by_test_id("challenge").fill("2")
    start.get_by_test_id("consequence").fill("1")
    start.get_by_role("button", name="Start the contest").click()
    gm.get_by_test_id("draw-agent").fill("d6-1, d6-2, d6-3, d6-4, d6-5")
    gm.get_by_test_id("draw-narrator").fill("d10-1, d10-2")
    gm.get_by_role("button", name="Enter the hands").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("hand-agent").locator("li.die")).to_have_count(5)
        expect(page.get_by_test_id("hand-narrator").locator("li.die")).to_have_count(2)
        expect(page.get_by_test_id("pool").locator("li.die")).to_have_count(8)
        expect(page.get_by_test_id("track")).to_have_text("·")

    # the player declares no risk; only then may the GM type the faces
    expect(gm.get_by_test_id("faces")).to_have_count(0)
    ann.get_by_test_id("no-risk").click()
    expect(ann.get_by_test_id("risk")).to_have_text("No risk this round.")
    expect(gm.get_by_label("Agent's fifth d6")).to_be_visible()  # each die by its kind and place, not its id
    expect(gm.get_by_label("Narrator's second d10")).to_be_visible()
    for die in ("d6-1", "d6-2", "d6-3", "d6-4", "d6-5"):
        gm.get_by_test_id(f"face-{die}").fill("2")
    gm.get_by_test_id("face-d10-1").fill("4")
    gm.get_by_test_id("face-d10-2").fill("9")
    gm.get_by_role("button", name="Enter the faces").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("last-roll")).to_contain_text("the agent wins the round")
        expect(page.get_by_test_id("hand-chips-agent")).to_have_text("5")
        expect(page.get_by_test_id("die-d10-2")).to_have_attribute("aria-label", "d10 showing 9, a turncoat")
    expect(ann.get_by_label("contest log")).to_contain_text("narrator d10 showing 4, d10 showing 9")  # no die ids
    expect(gm.get_by_test_id("test-agent")).to_have_count(0)  # the player stacks the agent's chips
    assert_accessible(ann, "karbon test")
    screenshot(ann, "karbon-test")

    # the player stacks five chips: a break, marked X, and its choices as buttons
    ann.get_by_test_id("stack-agent-5").click()
    expect(ann.get_by_test_id("break-choices")).to_be_visible()
    expect(gm.get_by_test_id("break-choices")).to_have_count(0)
    expect(gm.get_by_test_id("track")).to_have_text("X")
    expect(ann.get_by_test_id("break-security")).to_be_disabled()  # no peril die to remove
    screenshot(ann, "karbon-break")
    ann.get_by_test_id("break-discard").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("outcome")).to_contain_text("won")
        expect(page.get_by_test_id("spent").locator("li.die")).to_have_count(7)
    expect(gm.get_by_test_id("start-contest")).to_contain_text("the pool holds what contest 1 left")

    # the next contest's numbers worked out with the seed's guides: a difficult task (3) against a profile (+1)
    # with several people (+1) and one other factor (+1) is 6 dice; a moderate contest (2) with a profile is 3 wins
    start = gm.get_by_test_id("start-contest")
    start.get_by_test_id("goal").fill("get the ledger off the boat")
    start.get_by_test_id("ability").fill("Nerve")
    start.get_by_test_id("level").fill("2")
    start.get_by_label("Work the challenge out with the guide").check()
    expect(start.get_by_test_id("challenge")).to_have_count(0)
    guide = start.get_by_test_id("challenge-guide")
    guide.get_by_label("The task is").select_option("difficult")
    guide.get_by_label("A profile is involved (+1)").check()
    guide.get_by_label("Opposed by").select_option("several")
    guide.get_by_test_id("guide-factors").fill("1")
    start.get_by_label("Work the consequence out with the guide").check()
    guide = start.get_by_test_id("consequence-guide")
    guide.get_by_label("The contest is").select_option("moderate")
    guide.get_by_test_id("guide-profiles").fill("1")
    assert_accessible(gm, "karbon contest guides")
    start.get_by_role("button", name="Start the contest").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("contest")).to_contain_text("Nerve 2 · challenge 6")
        expect(page.get_by_test_id("track")).to_have_attribute("aria-label", "0 X, 0 O of 3")
    assert pages.errors == []
