"""On a phone (390 px), the new-contest form of every ruleset fits the screen: nothing scrolls sideways, its
settings' long option texts included, the chosen one written out whole under its select."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Pages
from tests.e2e.conftest import ServerFactory

RULESETS = ["extended", "herowars", "scored", "karbon", "contingency"]


def test_every_new_contest_form_fits_a_phone(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    page, _ = pages.open(f"{server.http_url}/", viewport=PHONE)
    page.get_by_test_id("new-contest").click()
    wide = {}
    for name in RULESETS:
        page.get_by_label("Ruleset", exact=True).select_option(name)
        expect(page.get_by_test_id("create")).to_be_visible()
        folded = page.locator("details:not([open]) > summary")
        while folded.count():
            folded.first.click()  # the folded settings too
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[name] = width
    assert wide == {}, f"new-contest forms wider than a {PHONE['width']} px phone: {wide}"
    # a select cuts a long option's text on a phone: the chosen one is written out under it, whole
    page.get_by_label("Ruleset", exact=True).select_option("extended")
    page.get_by_label("After each roll").select_option("when_it_matters")
    chosen = page.get_by_test_id("hero_point_window-chosen")
    expect(chosen).to_have_text("when it matters: wait only for a hero point that could change the result")
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(chosen).to_be_hidden()  # a laptop's select shows it all
    assert pages.errors == [], pages.errors
