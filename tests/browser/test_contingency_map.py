"""Contingency played by pointing at the zone map, on a phone as on a laptop: a player taps a zone and sees the
path its character would take and what it costs before sending, a zone out of reach says why next to the map,
the target of an action is tapped on the map, the GM picks on the map what its landscape tools ask for, and at
390 px the map zooms (buttons and pinch) and pans (drag) while nothing on the page scrolls sideways."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import PHONE, Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory

ZONES = (
    "Gate | Exposed\n"
    "Courtyard | Limited Space, Intimidating, Slippery Flagstones, Broken Statues of the Old Kings\n"
    "Keep | | 1\n"
    "Tower\n"
    "Moat"
)
CONNECTIONS = "Gate -- Courtyard\nCourtyard -- Keep\nKeep -- Tower | Climb 5"


def create(
    gm: Page, zones: str = ZONES, connections: str = CONNECTIONS, characters: str = "Vex @ Gate | Ann\nGuard @ Keep"
) -> None:
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Ruleset", exact=True).select_option("contingency")
    gm.get_by_label("Title", exact=True).fill("The keep")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_test_id("zones").fill(zones)
    gm.get_by_test_id("connections").fill(connections)
    gm.get_by_test_id("characters").fill(characters)
    gm.get_by_label("Players type the faces of their own rolls (physical dice)").check()
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


def open_phone(pages: Pages, url: str) -> Page:
    """A page at 390 px with a touch screen, in its own browser context (closed with the others)."""
    return pages.open(url, viewport=PHONE, has_touch=True)[0]


def view_box(page: Page) -> list[float]:
    return [float(n) for n in (page.get_by_test_id("map-svg").get_attribute("viewBox") or "").split()]


def text_px(page: Page, selector: str) -> float:
    """The on-screen size of the map's smallest text: its font size times the map's scale."""
    return float(
        page.locator(selector).first.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize) * el.getScreenCTM().a")
    )


def pinch(page: Page, target: Locator, spread: int) -> None:
    """Two fingers on the map moving apart by `spread` px (together when negative)."""
    box = target.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)

    def fingers(d: float) -> dict[str, object]:
        return {"touchPoints": [{"x": x - d, "y": y, "id": 1}, {"x": x + d, "y": y, "id": 2}]}

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", **fingers(30)})
    for k in range(1, 11):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", **fingers(30 + spread * k / 20)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def classes(locator: Locator) -> str:
    return locator.get_attribute("class") or ""


def test_a_player_taps_a_zone_to_move_there(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    ann = open_phone(pages, gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    expect(ann.get_by_test_id("token-vex")).to_be_attached()

    # at 390 px the map starts where its text reads at 12 px or more; the long trait list wraps in its box
    assert text_px(ann, ".zone-traits") >= 11.9
    expect(ann.get_by_test_id("zone-courtyard")).to_contain_text("Broken Statues of the Old Kings")
    start = view_box(ann)
    ann.get_by_test_id("zoom-in").click()
    zoomed = view_box(ann)
    assert zoomed[2] < start[2] and zoomed[3] < start[3], (start, zoomed)
    # a drag pans the map, and is no tap on the zone it started on
    viewport = ann.get_by_test_id("map-viewport").bounding_box()
    assert viewport is not None
    x, y = viewport["x"] + viewport["width"] / 2, viewport["y"] + viewport["height"] / 2
    ann.mouse.move(x, y)
    ann.mouse.down()
    ann.mouse.move(x - 60, y - 40, steps=5)
    ann.mouse.move(x - 120, y - 80, steps=5)
    ann.mouse.up()
    panned = view_box(ann)
    assert panned[0] > zoomed[0] and panned[2] == zoomed[2], (zoomed, panned)
    expect(ann.get_by_test_id("map-said")).to_have_text("")
    # Fit shows the whole map; a pinch zooms in again
    ann.get_by_test_id("zoom-fit").click()
    fit = view_box(ann)
    assert fit[2] > start[2], (start, fit)
    pinch(ann, ann.get_by_test_id("map-viewport"), 160)
    pinched = view_box(ann)
    assert pinched[2] < fit[2] * 0.8, (fit, pinched)
    screenshot(ann, "contingency-map-zoomed")  # nothing scrolls sideways at 390 px
    ann.get_by_test_id("zoom-fit").click()

    # without movement points, a tapped zone says why Vex cannot go there yet, and what it would cost
    ann.get_by_test_id("zone-courtyard").tap()
    expect(ann.get_by_test_id("map-said")).to_contain_text("Vex has no movement points this round")
    expect(ann.get_by_test_id("map-said")).to_contain_text("1 zone (Courtyard 2), 2 movement points")
    ann.get_by_test_id("map-cancel").click()

    # Vex announces Reposition and Strike (the limits are said next to the choice) and repositions: 7 points
    gm.get_by_test_id("open-intent").click()
    intent = ann.get_by_test_id("intent-vex")
    intent.get_by_label("Reposition (Movement)").check()
    intent.get_by_label("Strike (Combat)").check()
    expect(ann.get_by_test_id("intent-limit-vex")).to_contain_text("2 of at most 8 a round")
    expect(ann.get_by_test_id("intent-limit-vex")).to_contain_text("the last would carry −2")
    intent.get_by_role("button", name="Seal my intent").click()
    gm.get_by_test_id("close-window").click()
    expect(ann.get_by_test_id("roll-limits")).to_contain_text("Vex's 1st action this round: no penalty")
    ann.get_by_test_id("faces").fill("5 6 7")
    ann.get_by_role("button", name="Resolve Vex's Reposition action").click()
    said = ann.get_by_test_id("map-said")
    expect(said).to_contain_text("Tap a zone to move Vex there. Vex: 7 movement points left this round")
    expect(ann.get_by_label("Vex: where to move (7 movement points left)")).to_be_visible()

    # out of reach: behind a barrier, and not connected at all; each says why, next to the map
    ann.get_by_test_id("zone-tower").tap()
    expect(said).to_have_text(re.compile(r"^Every way to Tower crosses a barrier: Climb 5 between Keep and Tower\."))
    expect(ann.get_by_test_id("zone-tower")).to_have_class(re.compile(r"\bunreachable\b"))
    expect(ann.get_by_test_id("link-keep~tower")).to_have_class(re.compile(r"\bblocked\b"))
    expect(ann.get_by_test_id("map-send")).to_have_count(0)
    ann.get_by_test_id("zone-moat").tap()
    expect(said).to_contain_text("Moat is not connected to Gate by any path")
    expect(ann.get_by_test_id("map-send")).to_have_count(0)

    # the keep: its path is drawn, and the cost is said before sending
    ann.get_by_test_id("zone-keep").tap()
    expect(said).to_have_text(
        "Move Vex to Keep: 2 zones (Courtyard 2, Keep 3), costs 5 of its 7 movement points; 2 left."
    )
    for link in ("link-courtyard~gate", "link-courtyard~keep"):
        expect(ann.get_by_test_id(link)).to_have_class(re.compile(r"\bon-path\b"))
    expect(ann.get_by_test_id("link-keep~tower")).not_to_have_class(re.compile(r"\bon-path\b"))
    expect(ann.get_by_test_id("zone-keep")).to_have_class(re.compile(r"\bdestination\b"))
    expect(ann.get_by_test_id("zone-courtyard")).to_have_class(re.compile(r"\bon-path\b"))
    # the move form below shares the choice
    expect(ann.get_by_label("Vex: where to move (7 movement points left)")).to_have_value("keep")
    assert_accessible(ann, "player's map with a move planned")
    screenshot(ann, "contingency-map-move")
    ann.emulate_media(color_scheme="dark")
    assert_accessible(ann, "player's map with a move planned, dark")
    screenshot(ann, "contingency-map-move-dark")
    ann.emulate_media(color_scheme="light")
    ann.get_by_test_id("map-cancel").click()
    expect(ann.get_by_test_id("zone-keep")).not_to_have_class(re.compile(r"\bdestination\b"))

    # from the keyboard: the zones are buttons named by their traits; Enter chooses
    keep = ann.get_by_role("button", name=re.compile(r"^Keep; \+1 MP"))
    keep.focus()
    ann.keyboard.press("Enter")
    expect(said).to_contain_text("Move Vex to Keep: 2 zones")
    ann.get_by_test_id("map-send").click()
    for page in (ann, gm):
        expect(page.get_by_test_id("character-vex")).to_contain_text("in Keep")
        expect(page.get_by_test_id("character-vex")).to_contain_text("2 movement points")
    expect(said).to_contain_text("Vex: 2 movement points left this round")
    ann.get_by_test_id("zone-gate").tap()
    expect(said).to_have_text(
        "Gate is out of reach: the cheapest way is 2 zones (Courtyard 3, Gate 2), 5 movement points,"
        " and Vex has 2 left."
    )
    ann.get_by_test_id("map-cancel").click()
    token = gm.get_by_test_id("token-vex").locator("circle").last.bounding_box()
    keep_box = gm.get_by_test_id("zone-keep").locator("rect").first.bounding_box()
    assert token and keep_box
    assert keep_box["x"] <= token["x"] and token["x"] + token["width"] <= keep_box["x"] + keep_box["width"]
    assert keep_box["y"] <= token["y"] and token["y"] + token["height"] <= keep_box["y"] + keep_box["height"]

    # the Strike's target, tapped on the map: the guard, now close
    target = ann.get_by_test_id("target-vex.2")
    target.get_by_role("button", name="Pick on the map: the target of Vex's Strike").click()
    expect(said).to_contain_text("Tap a character's token, a zone or a thing (▣) on the map")
    ann.get_by_test_id("token-vex").tap()
    expect(said).to_have_text("That is Vex: an action aims at someone or something else.")
    ann.get_by_test_id("token-guard").tap()
    expect(said).to_have_text("Guard as the target of Vex's Strike: close (the same zone).")
    expect(target.get_by_label("Target of Vex's Strike (action 2)")).to_have_value("guard")
    assert_accessible(ann, "player's map while picking a target")
    ann.get_by_test_id("map-send").click()
    expect(gm.get_by_test_id("action-vex.2")).to_contain_text("Guard")
    expect(ann.get_by_test_id("map-said")).not_to_contain_text("target")
    screenshot(gm, "contingency-map-gm")
    assert_accessible(gm, "GM console after the move")
    assert pages.errors == [], pages.errors


def test_the_gm_picks_on_the_map(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    watcher, _ = pages.open(gm.get_by_test_id("invite-spectator").locator("input.link").input_value())
    # the spectator's map is a picture: nothing on it is a button
    expect(watcher.get_by_test_id("map-svg")).to_have_attribute("role", "img")
    expect(watcher.get_by_test_id("zone-gate")).not_to_have_attribute("role", "button")

    # the map starts where its text reads at 12 px; Fit shows it whole (on a laptop too)
    assert text_px(gm, ".zone-traits") >= 11.9
    gm.get_by_test_id("zoom-fit").click()
    expect(gm.get_by_test_id("zoom-fit")).to_be_disabled()
    # the GM selects the gate, then picks on the map the character to bring there and the zone to join it to
    gm.get_by_test_id("zone-gate").click()
    expect(gm.get_by_test_id("landscape")).to_contain_text("Gate")
    gm.get_by_role("button", name="Pick on the map: who goes to this zone").click()
    gm.get_by_test_id("zone-tower").click()
    expect(gm.get_by_test_id("map-said")).to_have_text("Tap a character's token to choose who goes to this zone.")
    gm.get_by_test_id("token-vex").click()
    expect(gm.get_by_test_id("map-said")).to_have_text("Vex is already in Gate.")
    gm.get_by_test_id("token-guard").click()
    expect(gm.get_by_label("Character to place in this zone")).to_have_value("guard")
    gm.get_by_test_id("map-back").click()
    expect(gm.get_by_role("button", name="Pick on the map: who goes to this zone")).to_be_focused()
    gm.get_by_role("button", name="Place here").click()
    expect(watcher.get_by_test_id("character-guard")).to_contain_text("in Gate")

    gm.get_by_role("button", name="Pick on the map: the zone to join to this one").click()
    gm.get_by_test_id("zone-moat").click()
    expect(gm.get_by_test_id("map-said")).to_have_text("Moat and Gate: connect them with the form.")
    expect(gm.get_by_label("Other zone")).to_have_value("moat")
    gm.get_by_test_id("map-back").click()
    gm.get_by_role("button", name="Connect, or set the barrier").click()
    expect(watcher.get_by_test_id("link-gate~moat")).to_have_count(1)
    # the selection is still the gate: picking did not change it
    expect(gm.get_by_test_id("landscape")).to_contain_text("Change the landscape: Gate")
    assert_accessible(gm, "GM console picking on the map")
    assert_accessible(watcher, "spectator's map")

    # the GM moves the guard, which it runs, by tapping a zone once the guard has repositioned (4 points)
    gm.get_by_test_id("open-intent").click()
    gm.get_by_test_id("intent-guard").get_by_label("Reposition (Movement)").check()
    gm.get_by_test_id("intent-guard").get_by_role("button", name="Seal my intent").click()
    gm.get_by_test_id("close-window").click()
    gm.get_by_test_id("faces").fill("2 3 4")
    gm.get_by_role("button", name="Resolve Guard's Reposition action").click()
    said = gm.get_by_test_id("map-said")
    expect(said).to_contain_text("Tap a zone to move Guard there. Guard: 4 movement points left")
    gm.get_by_test_id("zone-courtyard").click()
    expect(gm.get_by_test_id("map-said")).to_have_text(
        "Move Guard to Courtyard: 1 zone (Courtyard 2), costs 2 of its 4 movement points; 2 left."
    )
    expect(gm.get_by_test_id("landscape")).to_contain_text("Change the landscape: Courtyard")
    gm.get_by_test_id("map-send").click()
    expect(watcher.get_by_test_id("character-guard")).to_contain_text("in Courtyard")
    assert pages.errors == [], pages.errors


def test_barrier_labels_on_crossing_links_are_each_readable(agon_server: ServerFactory, pages: Pages) -> None:
    """Four zones drawn two by two, a barrier on each diagonal: the links cross at their middles, and each label is
    written where the other does not cover it, above the zones (no box hides one)."""
    server = agon_server()
    gm, _ = pages.open(server.http_url + "/")
    create(
        gm,
        "Mill\nBridge\nFord\nWoods",
        "Mill -- Bridge\nMill -- Woods | Climb 5\nBridge -- Ford | Leap 6",
        "Dee @ Mill | Ann\nCaptain @ Woods",
    )
    labels = gm.locator(".barrier-label")
    expect(labels).to_have_count(2)
    expect(gm.get_by_test_id("label-mill~woods")).to_have_text("Climb 5")
    expect(gm.get_by_test_id("label-bridge~ford")).to_have_text("Leap 6")
    drawn_after_every_zone = """(label) => [...label.ownerSVGElement.querySelectorAll('g[data-testid^="zone-"]')].every(
        (zone) => zone.compareDocumentPosition(label) & Node.DOCUMENT_POSITION_FOLLOWING)"""
    for i in range(2):
        assert labels.nth(i).evaluate(drawn_after_every_zone), "a zone's box is drawn over a barrier label"
    first, second = (labels.nth(i).bounding_box() for i in range(2))
    assert first is not None and second is not None
    apart = (
        first["x"] + first["width"] <= second["x"]
        or second["x"] + second["width"] <= first["x"]
        or first["y"] + first["height"] <= second["y"]
        or second["y"] + second["height"] <= first["y"]
    )
    assert apart, f"one barrier label covers the other: {first} {second}"
