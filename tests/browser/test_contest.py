"""A whole extended contest played in browsers against a real `agon serve`: a GM creates it through the form,
two players and a spectator join by their links alone, and everyone sees the same contest — sealed intents
stay sealed on the other pages (DOM, storage and every WebSocket frame), undo and rewind reach every page, a
reloaded page resumes, a re-issued link is refused and its replacement accepted."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.conftest import Frames, Pages, assert_accessible, screenshot, storage
from tests.browser.test_group_round import MOVE_BOX, no_empty_move_box
from tests.e2e.conftest import ServerFactory

SECRET_ACTION = "feint-left-7f3a9c"  # Ann's sealed action: must reach nobody else before the reveal


def create_through_the_form(page: Page) -> None:
    page.get_by_test_id("new-contest").click()
    expect(page.get_by_role("heading", name="New contest")).to_be_visible()
    assert_accessible(page, "creation form")
    page.get_by_label("Title", exact=True).fill("Duel at the bridge")
    page.get_by_label("Dice", exact=True).select_option("physical")
    # an invalid rating is explained next to its field before anything is sent
    page.get_by_label("Prize", exact=True).fill("the bridge")
    page.locator("input[name=c0-name]").fill("Aria")
    page.locator("input[name=c0-ability]").fill("Sword")
    page.locator("input[name=c0-rating]").fill("15X")
    page.locator("input[name=c0-player]").fill("Ann")
    page.locator("input[name=c1-name]").fill("Orc")
    page.locator("input[name=c1-ability]").fill("Axe")
    page.locator("input[name=c1-rating]").fill("12")
    page.locator("input[name=c1-player]").fill("Bob")
    page.get_by_test_id("create").click()
    expect(page.get_by_text("Write a rating like 14, 5W or 5W2.")).to_be_visible()
    assert page.locator("input[name=c0-rating]").get_attribute("aria-invalid") == "true"
    expect(page.locator("input[name=c0-rating]")).to_be_focused()  # the first refusal takes the reader to it
    expect(page.locator("input[name=c0-rating]")).to_be_in_viewport()
    screenshot(page, "new-contest")
    page.locator("input[name=c0-rating]").fill("15")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("role")).to_have_text("GM console")


def link_of(gm: Page, testid: str) -> str:
    value = gm.get_by_test_id(testid).locator("input.link").input_value()
    assert "#t=eyJ" in value  # a JWT, as anyone's JWT library reads it
    return value


def ap(page: Page, contestant: str) -> str:
    return page.get_by_test_id(f"ap-{contestant}").inner_text()


def expect_ap(pages: list[Page], contestant: str, values: list[str]) -> None:
    for page, value in zip(pages, values, strict=True):
        expect(page.get_by_test_id(f"ap-{contestant}")).to_have_text(value)


def declare(page: Page, contestant: str, action: str, bid: int) -> None:
    form = page.get_by_test_id(f"intent-{contestant}")
    form.get_by_test_id("intent-action").fill(action)
    form.get_by_test_id("intent-bid").fill(str(bid))
    form.get_by_role("button", name=re.compile("Seal my intent|Replace")).click()


def faces(gm: Page, actor: int, defender: int, *players: Page) -> None:
    """The GM types the faces; then each player in the exchange lets the result stand."""
    gm.get_by_test_id("face-actor").fill(str(actor))
    gm.get_by_test_id("face-defender").fill(str(defender))
    gm.get_by_role("button", name="Enter the faces").click()
    for player in players:
        player.get_by_role("button", name="Let it stand").click()


def assert_nothing_sealed_leaks(page: Page, frames: Frames, who: str) -> None:
    assert SECRET_ACTION not in page.content(), f"{who}: the sealed action is in the DOM"
    assert SECRET_ACTION not in storage(page), f"{who}: the sealed action is in storage"
    leaked = [frame for frame in frames.received if SECRET_ACTION in frame]
    assert leaked == [], f"{who}: the sealed action is in WebSocket frames: {leaked}"


def test_a_contest_is_created_played_and_watched_in_browsers(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, gm_frames = pages.open(f"{server.http_url}/")
    expect(gm.get_by_role("heading", name="Agon", exact=True)).to_be_visible()
    assert_accessible(gm, "start page")
    screenshot(gm, "start")
    create_through_the_form(gm)

    ann_link, bob_link, watch_link = (link_of(gm, t) for t in ("invite-ann", "invite-bob", "invite-spectator"))
    ann, ann_frames = pages.open(ann_link)
    bob, bob_frames = pages.open(bob_link)
    watcher, watcher_frames = pages.open(watch_link)
    everyone = [gm, ann, bob, watcher]
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(watcher.get_by_test_id("role")).to_have_text("Spectator")
    # the seats' names come from the server: a GM console in another browser reads them too
    elsewhere, _ = pages.open(gm.url)
    expect(elsewhere.get_by_test_id("invitations")).to_contain_text("Ann (plays Aria)")
    expect(elsewhere.get_by_test_id("invitations")).to_contain_text("Bob (plays Orc)")
    elsewhere.close()
    # the token travels in the fragment only: no request ever carried it in a URL
    for frames in (ann_frames, bob_frames, watcher_frames):
        assert not [url for url in frames.requests if "eyJ" in url.split("#")[0]]
    # a spectator has no controls; a player sees its own intent form only
    expect(watcher.get_by_role("button", name=re.compile("Seal|Roll|Undo"))).to_have_count(0)
    expect(ann.get_by_test_id("intent-orc")).to_have_count(0)
    expect(ann.get_by_test_id("intent-aria")).to_be_visible()
    expect_ap(everyone, "orc", ["12", "?", "12", "?"])

    # each player's limit is said next to the bid before anything is sent: a PC may stake its starting AP
    expect(ann.get_by_test_id("intent-aria").get_by_text("At most 15 AP")).to_be_visible()
    expect(bob.get_by_test_id("intent-orc").get_by_test_id("intent-bid")).to_have_accessible_description(
        "At most 12 AP (at least 1); empty: 3."
    )

    # Round 1: Ann seals her intent; nobody else may see a byte of it until Bob has sealed his
    declare(ann, "aria", SECRET_ACTION, 7)
    expect(ann.get_by_test_id("sealed-aria")).to_contain_text("waiting for 1 other")
    for page in (bob, watcher):
        expect(page.get_by_test_id("seal-aria")).to_contain_text("sealed")
    expect(gm.get_by_test_id("seal-aria")).to_contain_text(SECRET_ACTION)  # the GM sees every sealed intent
    assert_nothing_sealed_leaks(bob, bob_frames, "Bob")
    assert_nothing_sealed_leaks(watcher, watcher_frames, "the spectator")
    assert_accessible(ann, "player page, sealed")
    screenshot(ann, "player-sealed")
    declare(bob, "orc", "overhead swing", 3)
    for page in everyone:  # revealed together
        expect(page.get_by_test_id("intents")).to_contain_text(SECRET_ACTION)
        expect(page.get_by_test_id("intents")).to_contain_text("overhead swing")
    # before the round's first roll the GM may swap the order, said beside it; the players type no faces (the GM
    # does at this table): the board says what the contest waits for
    expect(gm.get_by_test_id("swap-order")).to_contain_text("Only before the round's first roll.")
    for page in (ann, bob):
        expect(page.get_by_test_id("face-actor")).to_have_count(0)
        expect(page.get_by_test_id("waiting-for")).to_have_text(
            "Waiting for Aria's exchange: the GM types the faces rolled at the table."
        )
    for page in everyone:
        no_empty_move_box(page)
    expect(watcher.locator(MOVE_BOX)).to_have_count(0)  # a spectator has no box at all

    # Aria's exchange: 2 against 15, Success against Failure: the orc loses 7
    faces(gm, 2, 15, ann, bob)
    expect_ap(everyone, "orc", ["5", "5", "5", "5"])
    expect(ann.get_by_test_id("last")).to_contain_text("Orc loses 7 AP")  # named, never the id
    expect(gm.get_by_test_id("swap-order")).to_have_count(0)  # the round has begun
    expect(ann.locator(MOVE_BOX)).to_be_hidden()  # Aria has acted: nothing for Ann until the orc's exchange is rolled
    for page in everyone:
        no_empty_move_box(page)
    # the GM undoes it: every page is back where it was (the orc's AP hidden again from those not entitled)
    gm.get_by_test_id("undo").click()
    expect_ap(everyone, "orc", ["12", "?", "12", "?"])
    expect(gm.get_by_test_id("timeline").locator("li.undone").first).to_be_visible()
    for page in (ann, bob, watcher):  # undone on every page, not only the GM's: struck out, and said so
        struck = page.get_by_label("contest log").locator("li.undone", has_text="orc loses 7 AP")
        expect(struck).to_contain_text("undone by the GM")
    gm.get_by_test_id("redo").click()  # and redoes it
    expect_ap(everyone, "orc", ["5", "5", "5", "5"])
    for page in (ann, bob, watcher):
        expect(page.get_by_label("contest log").locator("li.undone")).to_have_count(0)
    # the orc's exchange: 15 against 2, the orc fails: it loses its bid of 3
    faces(gm, 15, 2, ann, bob)
    expect_ap(everyone, "orc", ["2", "2", "2", "2"])
    expect(watcher.get_by_test_id("phase")).to_contain_text("Round 2")
    assert_accessible(gm, "GM console")
    screenshot(gm, "gm-console")
    assert_accessible(watcher, "spectator page")
    screenshot(watcher, "spectator")

    # rewind to the end of Aria's exchange, which the console asks to confirm (No changes nothing): every page
    # shows the orc at 5 again, the rest greyed out
    exchange_one = gm.get_by_test_id("timeline").locator("li", has_text="exchange 1: orc loses 7 AP")
    exchange_one.get_by_role("button", name="Rewind to here").click()
    expect(exchange_one).to_contain_text("Everything after it is undone")
    exchange_one.get_by_role("button", name="No").click()
    expect(gm.get_by_test_id("timeline").locator("li.undone", has_text="exchange 2:")).to_have_count(0)
    exchange_one.get_by_role("button", name="Rewind to here").click()
    exchange_one.get_by_role("button", name="Yes, rewind to here").click()
    expect_ap(everyone, "orc", ["5", "5", "5", "5"])
    expect(gm.get_by_test_id("timeline").locator("li.undone", has_text="exchange 2:").first).to_be_visible()
    expect(watcher.get_by_label("contest log").locator("li.undone", has_text="exchange 2:").first).to_be_visible()
    # the console's timeline asked only for what was new (`after`), and took the re-marked entries from `revised`
    continued = [m for m in gm_frames.messages("timeline") if m.get("after") is not None]
    assert len(continued) >= 3 and all(e["version"] > m["after"] for m in continued for e in m["entries"])
    assert any(e["undone"] for m in continued for e in m["revised"])
    expect(bob.get_by_test_id("phase")).to_contain_text("Round 1")

    # Ann reloads her page mid-contest: it resumes from the version it had reached
    seen = len(ann_frames.sent)
    ann.reload()
    expect(ann.get_by_test_id("connection")).to_have_text("Connected")
    expect_ap([ann], "orc", ["5"])
    hello = next(f for f in ann_frames.sent[seen:] if '"hello"' in f)
    assert '"after":' in hello
    assert ann_frames.messages("welcome")[-1].get("view") is None  # resumed, not a fresh view

    # the GM re-issues Bob's link: his open page stops, the old link is refused, the new one works
    old_bob = bob_link
    copy = gm.get_by_test_id("invite-bob").get_by_role("button", name="Copy", exact=True)
    copy.click()
    expect(gm.get_by_test_id("invite-bob").get_by_role("button", name="Copied")).to_be_visible()
    expect(copy).to_be_visible(timeout=4000)  # back to "Copy" after a moment, for the next link
    gm.get_by_test_id("invite-bob").get_by_role("button", name="Re-issue").click()
    expect(gm.get_by_test_id("invite-bob").locator("input.link")).not_to_have_value(old_bob)
    expect(bob.get_by_test_id("revoked")).to_be_visible()
    stale, _ = pages.open(old_bob)
    expect(stale.get_by_test_id("revoked")).to_be_visible()
    assert_accessible(stale, "revoked link")
    bob, bob_frames = pages.open(link_of(gm, "invite-bob"))
    expect(bob.get_by_test_id("role")).to_have_text("Player: Bob")
    everyone = [gm, ann, bob, watcher]

    # the orc's exchange again, then round 2: Aria stakes everything and the orc falls
    faces(gm, 15, 2, ann, bob)
    expect_ap(everyone, "orc", ["2", "2", "2", "2"])
    declare(ann, "aria", "finish it", 15)
    declare(bob, "orc", "parry", 1)
    faces(gm, 2, 15, ann, bob)
    for page in everyone:
        expect(page.get_by_test_id("outcome")).to_contain_text("Aria wins")
    screenshot(ann, "player-outcome")
    gm.get_by_test_id("conclude").click()
    gm.get_by_test_id("conclude-yes").click()
    for page in everyone:
        expect(page.get_by_test_id("phase")).to_have_text("The contest is over")
    # over, its links are no longer re-issued, but an auditor link is what a concluded contest is for
    invitations = gm.get_by_test_id("invitations")
    expect(invitations.get_by_role("button", name="Re-issue")).to_have_count(0)
    invitations.get_by_test_id("auditor-link").click()
    auditor_link = invitations.get_by_test_id("invite-auditor").locator("input.link").input_value()
    auditor, _ = pages.open(auditor_link)
    expect(auditor.get_by_test_id("phase")).to_have_text("The contest is over")
    assert pages.errors == [], pages.errors

    # the replay viewer: as any viewer at any version, verified
    gm.get_by_role("link", name="Open the replay").click()
    expect(gm.get_by_test_id("verification")).to_contain_text("the log is intact")
    expect(gm.get_by_label("Seen as").locator("option")).to_contain_text(["the GM", "Ann (player)", "Bob (player)"])
    gm.get_by_label("Seen as").select_option("bob")
    gm.get_by_test_id("scrubber").fill("5")
    expect(gm.get_by_role("heading", name=re.compile("Version 5 of"))).to_be_visible()
    assert_accessible(gm, "replay viewer")
    screenshot(gm, "replay")

    # the start page lists the contest created from this browser, with its state
    gm.goto(f"{server.http_url}/")
    mine = gm.locator(".my-contests li", has_text="Duel at the bridge")
    expect(mine).to_contain_text("The contest is over")
    expect(mine).to_contain_text(re.compile(r"\d+ entries in its log"))
    assert_accessible(gm, "start page with my contests")
    screenshot(gm, "start-my-contests")
