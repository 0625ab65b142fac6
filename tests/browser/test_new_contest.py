"""The new-contest form in Chromium: a contestant added by mistake is removed again, the others keep what was
typed for them, and the contest is created without it."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import Pages, assert_accessible
from tests.e2e.conftest import ServerFactory


def test_a_contestant_added_to_the_form_can_be_removed_again(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Ruleset", exact=True).select_option("extended")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_label("Prize", exact=True).fill("the bridge")
    contestants = gm.locator("fieldset.contestant-setup")
    expect(contestants.get_by_role("button", name="Remove", exact=False)).to_have_count(0)  # a duel needs two
    gm.get_by_test_id("add-contestant").click()
    gm.get_by_test_id("add-contestant").click()
    for i, (name, ability, rating, player) in enumerate(
        [("Aria", "Sword", "15", "Ann"), ("Orc", "Axe", "12", ""), ("Goblin", "Knife", "6", "")]
    ):
        gm.locator(f"input[name=c{i}-name]").fill(name)
        gm.locator(f"input[name=c{i}-ability]").fill(ability)
        gm.locator(f"input[name=c{i}-rating]").fill(rating)
        gm.locator(f"input[name=c{i}-player]").fill(player)
    expect(contestants).to_have_count(4)
    contestants.nth(3).get_by_role("button", name="Remove contestant 4").click()  # the empty one added too many
    contestants.nth(1).get_by_role("button", name="Remove Orc").click()
    expect(contestants).to_have_count(2)
    expect(contestants.get_by_role("button", name="Remove", exact=False)).to_have_count(0)
    expect(gm.locator("input[name=c0-name]")).to_have_value("Aria")
    expect(gm.locator("input[name=c1-name]")).to_have_value("Goblin")
    expect(gm.locator("input[name=c1-rating]")).to_have_value("6")
    assert_accessible(gm, "new-contest form after removing contestants")
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")
    expect(gm.locator("main")).to_contain_text("Goblin")
    expect(gm.locator("main")).not_to_contain_text("Orc")
    assert pages.errors == [], pages.errors
