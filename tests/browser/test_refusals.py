"""A refusal a player causes from the page is said in words next to the control that caused it: the
catalogue's sentence for its code (clients/web/refusals.js), then the specific the server's message carries,
with the contestant's name in place of its id and without the message's field path."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible
from tests.e2e.conftest import ServerFactory
from tests.web.test_refusals_catalogue import catalogue


def create(gm: Page) -> None:
    """A duel with physical dice whose players type their own faces: Ann plays Aria (15), the GM runs the Old
    Orc (6), whose id is old-orc."""
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Title", exact=True).fill("Refusals at the ford")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_label("Players type the faces of their own exchange (physical dice)").check()
    gm.get_by_label("Prize", exact=True).fill("the ford")
    for field, value in (("c0-name", "Aria"), ("c0-ability", "Sword"), ("c0-rating", "15"), ("c0-player", "Ann")):
        gm.locator(f"input[name={field}]").fill(value)
    for field, value in (("c1-name", "Old Orc"), ("c1-ability", "Axe"), ("c1-rating", "6")):
        gm.locator(f"input[name={field}]").fill(value)
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


def seal(page: Page, contestant: str, action: str, bid: int) -> None:
    form = page.get_by_test_id(f"intent-{contestant}")
    form.get_by_test_id("intent-action").fill(action)
    form.get_by_test_id("intent-bid").fill(str(bid))
    form.get_by_role("button", name="Seal my intent").click()


def test_a_face_left_out_is_refused_in_words_next_to_the_form(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    ann, _ = pages.open(gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")

    # Aria bids the higher and acts first: Ann types the faces rolled at the table, and forgets the orc's
    seal(gm, "old-orc", "snarls", 1)
    seal(ann, "aria", "drives it back", 7)
    faces = ann.get_by_test_id("faces")
    ann.get_by_test_id("face-actor").fill("2")
    faces.get_by_role("button", name="Enter the faces").click()
    refusal = faces.get_by_role("alert")
    expect(refusal).to_have_text(f"{catalogue()['dice/bad_face']} Old Orc rolls a d20.")
    text = refusal.inner_text()
    assert not re.search(r"\w\[\d+\]|faces:", text), f"a field path in {text!r}"
    assert "old-orc" not in text, f"an id in {text!r}"
    assert_accessible(ann, "a refusal next to its form")

    # nothing changed; with the orc's face the exchange is rolled, and the refusal is gone with the form
    expect(gm.get_by_test_id("ap-old-orc")).to_have_text("6")
    ann.get_by_test_id("face-defender").fill("15")
    faces.get_by_role("button", name="Enter the faces").click()
    ann.get_by_role("button", name="Let it stand").click()
    expect(ann.get_by_test_id("outcome")).to_contain_text("Aria wins")
    expect(ann.get_by_role("alert")).to_have_count(0)
    assert pages.errors == []
