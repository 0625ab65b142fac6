"""A Contingency encounter in the browser: the GM creates it from the form (with a character sheet's dice and
cards), the zone map is drawn for every page, the GM splits, disconnects, re-terrains and removes zones on the
map and everyone's map changes live; face-down intents show only their types to others; the GM reorders the
queue and engages and disengages characters; a roll uses the sheet's dice for an attribute and skill; the
replay viewer shows the map as it was before the split."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory


def create(gm: Page) -> None:
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Ruleset", exact=True).select_option("contingency")
    gm.get_by_label("Title", exact=True).fill("The ford")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_test_id("zones").fill(
        "Forest Clearing | Exposed\nRiver Rapids | Forced Movement | 1 | Narrow Corridor\nNarrow Corridor"
    )
    gm.get_by_test_id("connections").fill("Forest Clearing -- River Rapids\nRiver Rapids -- Narrow Corridor | Leap 6")
    gm.get_by_test_id("characters").fill("Ellis @ Forest Clearing | Ann\nGoblin @ Forest Clearing")
    gm.get_by_test_id("sheets").fill("Ellis | Agility+Athletics: 8 10 12\nEllis | cards: Strike, Climb, Defend")
    gm.get_by_label("Intent", exact=True).select_option("face_down")
    gm.get_by_label("Players type the faces of their own rolls (physical dice)").check()
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


SELECT_AND_TYPE = """async ([zone, label, value]) => {
    window.requestAnimationFrame = () => 0;  // a page that paints late (a busy phone): effects wait 100 ms
    document.querySelector(`[data-testid="${zone}"]`).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    for (let i = 0; i < 10; i++) await Promise.resolve();  // the zone's form drawn, nothing painted yet
    const field = [...document.querySelectorAll("label")].find((l) => l.textContent.startsWith(label)).control;
    field.value = value;
    field.dispatchEvent(new Event("input", { bubbles: true }));
}"""


def test_what_the_gm_types_right_after_selecting_a_zone_stays(agon_server: ServerFactory, pages: Pages) -> None:
    """The GM taps a zone and types its movement modifier at once, before the page has painted: the form was reset
    for the new zone as it was drawn, not after the paint, so what was typed stays and is what the GM sets."""
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    expect(gm.get_by_test_id("zone-river-rapids")).to_contain_text("+1 MP")
    gm.get_by_test_id("zone-river-rapids").click()  # another zone selected first: its form is the one shown
    expect(gm.get_by_test_id("landscape")).to_contain_text("River Rapids")
    gm.evaluate(SELECT_AND_TYPE, ["zone-forest-clearing", "Movement modifier", "3"])
    gm.wait_for_timeout(300)  # past the deferred effects' 100 ms
    expect(gm.get_by_test_id("landscape")).to_contain_text("Forest Clearing")
    expect(gm.get_by_label("Movement modifier (extra movement points)")).to_have_value("3")
    gm.get_by_role("button", name="Set the movement modifier").click()
    expect(gm.get_by_test_id("zone-forest-clearing")).to_contain_text("+3 MP")


def test_the_map_changes_for_everyone_when_the_gm_splits_a_zone(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    ann, _ = pages.open(gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    watcher, watched = pages.open(gm.get_by_test_id("invite-spectator").locator("input.link").input_value())
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("zone-forest-clearing")).to_contain_text("Exposed")
        expect(page.get_by_test_id("zone-river-rapids")).to_contain_text("+1 MP")
        expect(page.get_by_test_id("zone-river-rapids")).to_contain_text("sweeps to Narrow Corridor")
        expect(page.get_by_test_id("link-narrow-corridor~river-rapids")).to_have_count(1)
        expect(page.get_by_test_id("label-narrow-corridor~river-rapids")).to_have_text("Leap 6")
        expect(page.get_by_test_id("token-ellis")).to_be_visible()
    assert_accessible(ann, "player's zone map")

    # face down: Ann seals Strike and Climb from Ellis's cards; the spectator sees only their types
    gm.get_by_test_id("open-intent").click()
    intent = ann.get_by_test_id("intent-ellis")
    expect(intent.get_by_label("Parley (Influence)")).to_have_count(0)  # not one of Ellis's cards
    intent.get_by_label("Strike (Combat)").check()
    intent.get_by_label("Climb (Movement)").check()
    intent.get_by_role("button", name="Seal my intent").click()
    gm.get_by_test_id("close-window").click()
    expect(watcher.get_by_test_id("action-ellis.1")).to_contain_text("face down")
    expect(watcher.get_by_test_id("action-ellis.1")).to_contain_text("Combat")
    expect(ann.get_by_test_id("action-ellis.1")).to_contain_text("Strike")
    assert not [f for f in watched.received if "Strike" in f or "Climb" in f]
    # Movement resolves before Combat, until the GM moves the Strike first
    queue = ann.get_by_test_id("round-actions").locator("tbody tr")
    expect(queue).to_contain_text(["Climb", "Strike"])
    gm.get_by_role("button", name="Resolve Ellis's action 1 earlier").click()
    expect(queue).to_contain_text(["Strike", "Climb"])
    expect(watcher.get_by_test_id("round-actions").locator("tbody tr")).to_contain_text(["Combat", "Movement"])

    # the GM selects the clearing on the map and splits it; every map changes
    gm.get_by_test_id("zone-forest-clearing").click()
    expect(gm.get_by_test_id("landscape")).to_contain_text("Forest Clearing")
    gm.get_by_test_id("split-parts").fill("North Clearing, South Clearing")
    gm.get_by_label("Where Goblin stands").select_option("south-clearing")
    gm.get_by_test_id("split").get_by_role("button", name="Split the zone").click()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("zone-forest-clearing")).to_have_count(0)
        expect(page.get_by_test_id("zone-north-clearing")).to_be_visible()
        expect(page.get_by_test_id("zone-south-clearing")).to_be_visible()
        expect(page.get_by_test_id("link-north-clearing~south-clearing")).to_have_count(1)
        expect(page.get_by_test_id("link-river-rapids~south-clearing")).to_have_count(1)
        expect(page.get_by_test_id("character-ellis")).to_contain_text("in North Clearing")
        expect(page.get_by_test_id("character-goblin")).to_contain_text("in South Clearing")
    # the GM cuts the south clearing off from the rapids
    gm.get_by_test_id("zone-south-clearing").click()
    gm.get_by_label("Zone to disconnect from").select_option("river-rapids")
    gm.get_by_test_id("disconnect").get_by_role("button", name="Disconnect").click()
    for page in (ann, watcher):
        expect(page.get_by_test_id("link-river-rapids~south-clearing")).to_have_count(0)
        expect(page.get_by_test_id("link-north-clearing~south-clearing")).to_have_count(1)
    # the north clearing turns to mud (+2) that slides into the south clearing
    gm.get_by_test_id("zone-north-clearing").click()
    gm.get_by_label("Movement modifier (extra movement points)").fill("2")
    gm.get_by_label("Forced Movement sweeps into").select_option("south-clearing")
    gm.get_by_role("button", name="Set the movement modifier").click()
    for page in (ann, watcher):
        expect(page.get_by_test_id("zone-north-clearing")).to_contain_text("+2 MP")
        expect(page.get_by_test_id("zone-north-clearing")).to_contain_text("sweeps to South Clearing")
    # a new zone beside the north clearing, and the goblin placed in it
    gm.get_by_test_id("zone-north-clearing").click()
    gm.get_by_label("New zone's name").fill("Ledge")
    gm.get_by_role("button", name="Add a zone next to it").click()
    expect(watcher.get_by_test_id("link-ledge~north-clearing")).to_have_count(1)
    gm.get_by_test_id("zone-ledge").click()
    gm.get_by_label("Character to place in this zone").select_option("goblin")
    gm.get_by_role("button", name="Place here").click()
    expect(ann.get_by_test_id("character-goblin")).to_contain_text("in Ledge")
    screenshot(watcher, "contingency-map")
    # the ledge crumbles: the GM chooses where the goblin goes (not simply the first other zone)
    gm.get_by_label("Where Goblin goes").select_option("south-clearing")
    gm.get_by_test_id("remove-zone").get_by_role("button", name="Remove the zone").click()
    for page in (ann, watcher):
        expect(page.get_by_test_id("zone-ledge")).to_have_count(0)
        expect(page.get_by_test_id("character-goblin")).to_contain_text("in South Clearing")
    # an owl swoops into the south clearing, engages the goblin, and flies off
    gm.get_by_test_id("zone-south-clearing").click()
    gm.get_by_label("New character's name", exact=False).fill("Owl")
    gm.get_by_role("button", name="Add the character").click()
    expect(watcher.get_by_test_id("character-owl")).to_contain_text("in South Clearing")
    gm.get_by_label("One character").select_option("owl")
    gm.get_by_label("The other character").select_option("goblin")
    gm.get_by_role("button", name="Engage them", exact=True).click()
    expect(watcher.get_by_test_id("engaged-goblin-owl")).to_have_count(1)
    expect(ann.get_by_test_id("character-goblin")).to_contain_text("engaged with Owl")
    gm.get_by_role("button", name="Disengage them", exact=True).click()
    expect(watcher.get_by_test_id("engaged-goblin-owl")).to_have_count(0)
    expect(ann.get_by_test_id("character-goblin")).not_to_contain_text("engaged")
    gm.get_by_label("Character to remove").select_option("owl")
    gm.get_by_role("button", name="Remove the character").click()
    expect(watcher.get_by_test_id("token-owl")).to_have_count(0)

    # Ann resolves the Strike (9-9: an omen), takes the omen to strike again as an instant action
    ann.get_by_test_id("faces").fill("2 9 9")
    ann.get_by_role("button", name="Resolve Ellis's Strike action").click()
    expect(watcher.get_by_test_id("action-ellis.1")).to_contain_text("Strike")  # turned over
    expect(watcher.get_by_test_id("last")).to_contain_text("result 9, 1 omen(s)")
    ann.get_by_label("Ellis: an omen to take (1 left)").fill("Follow-through")
    ann.get_by_label("It grants an instant action").select_option("Strike")
    ann.get_by_role("button", name="Take the omen").click()
    ann.get_by_label("Faces rolled for Strike").fill("4 5 6")
    ann.get_by_role("button", name="Perform Strike as an instant action").click()
    expect(watcher.get_by_test_id("action-ellis.i3")).to_contain_text("Strike")
    expect(watcher.get_by_test_id("last")).to_contain_text("result 5")

    # Ann climbs with Agility and Athletics: the sheet's d8, d10 and d12 (a 9 is no face of the d8); −2 for a
    # second action, which she takes off the 5 and the 12
    using = ann.get_by_label("Roll with (attribute and skill)")
    expect(using).to_have_accessible_description(re.compile(r"^This roll: d\d+, d\d+, d\d+\.$"))
    using.select_option(label="Agility and Athletics")
    expect(using).to_have_accessible_description("This roll: d8, d10, d12.")  # said before anything is rolled
    ann.get_by_test_id("faces").fill("9 1 1")
    ann.get_by_role("button", name="Resolve Ellis's Climb action").click()
    expect(ann.get_by_test_id("roll")).to_contain_text("9 is not a face of a d8")
    ann.get_by_test_id("faces").fill("1 5 12")
    ann.get_by_role("button", name="Resolve Ellis's Climb action").click()
    # two points to take off 1-5-12, several ways: the form starts at a valid split, the highest die first; the
    # dice it cuts are drawn in it, and the roll before (the instant Strike's) is said to be the previous one
    expect(ann.get_by_test_id("penalty-dice").locator("svg.rolled-die")).to_have_count(3)
    expect(ann.get_by_test_id("penalty-dice")).to_contain_text("Ellis's three dice, before the penalty")
    shown = ann.get_by_test_id("penalty-dice").locator(".die-num").all_text_contents()
    assert shown == ["1", "5", "12"], shown
    expect(ann.get_by_test_id("last-dice")).to_contain_text("The previous roll: Ellis's three dice")
    expect(ann.get_by_test_id("last")).to_contain_text("The previous roll: 4-5-6, result 5")
    split = ann.get_by_test_id("penalty-split")
    expect(split).to_have_text("2 of 2 points taken: the dice would show 1-5-10, result 5.")
    ann.get_by_label("Off the 5").fill("1")
    expect(split).to_contain_text("3 of 2 points taken")  # said before sending, next to the dice
    ann.get_by_label("Off the 12").fill("1")
    expect(split).to_have_text("2 of 2 points taken: the dice would show 1-4-11, result 4.")
    ann.get_by_role("button", name="Take the penalty").click()
    expect(watcher.get_by_test_id("last")).to_contain_text("1-4-11, result 4, 1 omen(s)")
    expect(ann.get_by_label("contest log")).to_contain_text("Climb (Movement, announced) with Agility and Athletics")
    expect(ann.get_by_label("contest log")).to_contain_text("rolled 1-5-12 on d8/d10/d12, penalty −2")
    assert_accessible(gm, "GM console with the zone map")

    # the replay viewer shows the map as it was before the split
    gm.get_by_role("link", name="Replay viewer").click()
    scrubber = gm.get_by_test_id("scrubber")
    expect(gm.get_by_test_id("zone-north-clearing")).to_be_visible()
    scrubber.fill("2")
    expect(gm.get_by_test_id("zone-forest-clearing")).to_be_visible()
    expect(gm.get_by_test_id("zone-north-clearing")).to_have_count(0)
    assert pages.errors == [], pages.errors
