"""A change of action in browsers against a real `agon serve` (the ambush of test_group_options: players type the
faces of their own exchanges): Ann's Aria and the GM's Bran both single out the goblin; Bran, first by bid, knocks
it out before Aria's turn. The GM allows Aria to change her action, Ann retargets her at the orc on her page and
rolls her exchange against it. The player's page, the GM's console and a spectator's page show the new target.

Every number comes from the seed's exchange table (000 §5.3.1.1) and the faces typed."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_group_options import faces, open_ambush
from tests.browser.test_group_round import seal
from tests.e2e.conftest import ServerFactory


def shows(pages: tuple[Page, ...], texts: dict[str, str]) -> None:
    """Every page shows each of these texts under its test id."""
    for page in pages:
        for testid, text in texts.items():
            expect(page.get_by_test_id(testid)).to_have_text(text)


def test_a_player_retargets_when_the_gm_allows_it(agon_server: ServerFactory, pages: Pages) -> None:
    gm, ann, watcher = everyone = open_ambush(agon_server, pages)

    # Aria (bid 4) and Bran (bid 5) single out the goblin; the raiders go for Aria (their first opponent): the orc
    # bids 3, the rat 2, the goblin 1
    for page, contestant, action, bid in (
        (ann, "aria", "cuts at the goblin", 4),
        (gm, "bran", "spears the goblin", 5),
        (gm, "orc", "hacks", 3),
        (gm, "rat", "bites", 2),
        (gm, "goblin", "stabs", 1),
    ):
        if contestant in ("aria", "bran"):
            form = page.get_by_test_id(f"intent-{contestant}")
            form.locator("input[name=target-orc]").uncheck()
            form.locator("input[name=target-goblin]").check()
        seal(page, contestant, action, bid)
    gm.get_by_test_id("order-bid").click()
    shows(everyone, {"group-order": "Order by bid: Bran [next] → Aria → Orc → Rat → Goblin"})
    for page in everyone:
        expect(page.get_by_test_id("group-targets")).to_contain_text("Aria (bold) → Goblin")

    # Bran's 4 is a Success (TN 12), the goblin's 20 a Fumble: 2 steps, it loses 2 × 5 = 10, from 6 to -4; the
    # GM lets it go rather than take Bran's parting shot
    faces(gm, 4, 20)
    shows(everyone, {"ap-goblin": "-4", "shot-open-bran": "Bran may take a parting shot at Goblin."})
    gm.get_by_test_id("decline-bran").click()
    shows(everyone, {"group-order": "Order by bid: Bran [acted] → Aria [next] → Orc → Rat → Goblin [out]"})

    # Aria's only target is out: no faces to type for her exchange; Ann may only pass until the GM allows a change
    expect(gm.get_by_test_id("targets-out")).to_have_text(
        "Aria singles out no opponent still in: allow or make a change of action, or Aria passes this turn."
    )
    expect(ann.get_by_test_id("targets-out")).to_contain_text("the GM may allow a change of action")
    for page in (gm, ann):
        expect(page.get_by_test_id("face-actor")).to_have_count(0)
    expect(ann.get_by_test_id("change-aria")).to_have_count(0)
    expect(ann.get_by_test_id("pass-turn-aria")).to_be_visible()
    expect(ann.get_by_test_id("allow-change-aria")).to_have_count(0)  # the GM's to allow
    gm.get_by_test_id("allow-change-aria").click()
    shows(everyone, {"change-allowed-aria": "The GM lets Aria change its action before acting."})
    expect(gm.get_by_test_id("allow-change-aria")).to_have_count(0)
    gm.get_by_text("Change Aria's action").click()  # the GM may change it too, with the same form, folded
    expect(gm.get_by_test_id("change-aria")).to_be_visible()
    screenshot(ann, "retarget")

    # her form offers only the opponents still in, the first of them ticked; she turns on the orc with the same bid
    change = ann.get_by_test_id("change-aria")
    expect(change.locator("input[name=target-goblin]")).to_have_count(0)
    expect(change.locator("input[name=target-orc]")).to_be_checked()
    expect(change.locator("input[name=target-rat]")).not_to_be_checked()
    expect(change.get_by_label("Bid")).to_have_value("4")
    change.get_by_label("Action").fill("turns on the orc")
    change.get_by_role("button", name="Change the action").click()
    for page in everyone:
        expect(page.get_by_test_id("group-targets")).to_contain_text("Aria (bold) → Orc")
        expect(page.get_by_test_id("intents")).to_contain_text("“turns on the orc”, bid 4")
        expect(page.get_by_test_id("change-allowed-aria")).to_have_count(0)  # the leave is spent
    expect(ann.get_by_test_id("change-aria")).to_have_count(0)
    expect(gm.get_by_test_id("targets-out")).to_have_count(0)

    # Ann types the faces of Aria's exchange, which engages the orc: her 5 a Success (TN 15), its 16 a Failure
    # (TN 12): 1 step, the orc loses 1 × 4, from 12 to 8; she lets the result stand
    expect(ann.get_by_test_id("face-defender")).to_have_accessible_name("Orc's die")
    faces(ann, 5, 16)
    ann.get_by_test_id("pass-aria").click()
    shows(
        everyone,
        {"ap-orc": "8", "group-order": "Order by bid: Bran [acted] → Aria [acted] → Orc [next] → Rat → Goblin [out]"},
    )
    assert_accessible(ann, "a change of action, player page")
    assert_accessible(gm, "a change of action, GM console")
    assert_accessible(watcher, "a change of action, spectator page")
    assert pages.errors == []


def test_an_intent_the_gm_closed_the_window_on_is_said_to_be_unsealed(agon_server: ServerFactory, pages: Pages) -> None:
    """Ann never seals Aria's intent and the GM closes the window: her page and the GM's say why Aria engages
    nobody (the default intent), not that her opponents are out; the GM may still allow a change."""
    gm, ann, _ = open_ambush(agon_server, pages)
    for contestant, action, bid in (("bran", "spears the goblin", 5), ("orc", "hacks", 3), ("rat", "bites", 2)):
        seal(gm, contestant, action, bid)
    seal(gm, "goblin", "stabs", 1)
    gm.get_by_test_id("close-window").click()
    gm.get_by_test_id("order-keep").click()  # the order as it stands: Aria first
    expect(gm.get_by_test_id("targets-out")).to_have_text(
        "Aria's intent was not sealed in time and singles out nobody: allow or make a change of action, or Aria "
        "passes this turn."
    )
    expect(ann.get_by_test_id("targets-out")).to_contain_text("Aria's intent was not sealed in time")
    expect(ann.get_by_test_id("whose-move")).to_have_text(
        "Your move: pass the turn (Aria's intent was not sealed in time: it singles out nobody)"
    )
    expect(ann.get_by_test_id("pass-turn-aria")).to_be_visible()
