"""A scored sequence in Chromium: the GM creates it through the form, a player and a spectator follow it, and
two rounds are played — a sealed risky gambit that stays secret until the GM's tactic is in, the score as the
seed says it ("leading 4–0"), the RP chart over the rounds, and a defensive response in round 2. Then the
player assists her PC with its follower, typing her own faces, and shifts RP onto that follower as a
secondary contestant; everyone sees the tallies move. The Ogre, engaged in the rounds with her PC, may not
remove that follower; the Ogre's wolf, which rolls no rounds, engages it and removes it. Then the GM brings in
the player's second PC, arriving late to share her tally."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.browser.test_group_round import no_empty_move_box
from tests.e2e.conftest import ServerFactory


def secondary(gm: Page, i: int, name: str, rating: str, leader: str, side: str = "heroes") -> None:
    """Contestant ``i`` of the creation form: a follower of ``leader`` as a secondary contestant."""
    gm.get_by_test_id("add-contestant").click()
    gm.locator(f"input[name=c{i}-name]").fill(name)
    gm.locator(f"select[name=c{i}-side]").select_option(side)
    gm.locator(f"input[name=c{i}-rating]").fill(rating)
    fieldset = gm.locator("fieldset.contestant-setup").nth(i)
    fieldset.locator("summary").click()
    fieldset.locator(f"select[name=c{i}-role]").select_option("secondary")
    fieldset.locator(f"input[name=c{i}-leader]").fill(leader)


def create(gm: Page) -> None:
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Ruleset", exact=True).select_option("scored")
    gm.get_by_label("Dice", exact=True).select_option("physical")
    gm.get_by_label("Prize", exact=True).fill("the bridge")
    gm.locator("input[name=c0-name]").fill("Aria")
    gm.locator("input[name=c0-ability]").fill("Sword")
    gm.locator("input[name=c0-rating]").fill("15")
    gm.locator("input[name=c0-player]").fill("Ann")
    gm.locator("input[name=c1-name]").fill("Ogre")
    gm.locator("input[name=c1-ability]").fill("Club")
    gm.locator("input[name=c1-rating]").fill("13")
    secondary(gm, 2, "Brin", "12", "Aria")  # Aria's follower as a secondary contestant
    gm.get_by_test_id("add-contestant").click()  # Bors, Ann's second PC, arrives later
    gm.locator("input[name=c3-name]").fill("Bors")
    gm.locator("input[name=c3-rating]").fill("14")
    gm.locator("input[name=c3-player]").fill("Ann")
    bors = gm.locator("fieldset.contestant-setup").nth(3)
    bors.locator("summary").click()
    bors.get_by_label("Joins later (shares a comrade's tally)").check()
    secondary(gm, 4, "Wolf", "11", "Ogre", side="opposition")  # the Ogre's wolf: it rolls no rounds
    gm.get_by_label("Players type the faces of their own rolls (physical dice)").check()
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


def seal(page: Page, contestant: str, tactic: str, action: str) -> None:
    form = page.get_by_test_id(f"tactic-{contestant}")
    form.get_by_label("Tactic").select_option(tactic)
    form.get_by_test_id("tactic-action").fill(action)
    form.get_by_role("button", name="Seal my tactic").click()


def type_faces(form: Locator, *faces: int) -> None:
    for i, face in enumerate(faces):
        form.get_by_test_id(f"face-{i}").fill(str(face))


def faces(gm: Page, first: int, second: int, *players: Page) -> None:
    """The GM types the faces; then each player in the contest lets the result stand."""
    form = gm.get_by_test_id("roll")
    type_faces(form, first, second)
    form.get_by_role("button", name="Enter the faces").click()
    for player in players:
        player.get_by_role("button", name="Let it stand").click()


def test_two_rounds_of_a_scored_sequence_in_the_browser(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create(gm)
    ann, _ = pages.open(gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    watcher, watcher_frames = pages.open(gm.get_by_test_id("invite-spectator").locator("input.link").input_value())
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(gm.get_by_test_id("contestant-ogre")).to_contain_text("yours")  # the GM runs the Ogre

    # Round 1: the GM gives Aria the initiative; her risky gambit is sealed until the Ogre's tactic is in.
    gm.get_by_test_id("start-round").get_by_role("button", name="Start the round").click()
    expect(gm.get_by_test_id("phase")).to_contain_text("Aria has the initiative against Ogre")
    seal(ann, "aria", "gambit", "leaps from the parapet")
    expect(watcher.get_by_test_id("seal-aria")).to_contain_text("sealed")
    assert not any("leaps from the parapet" in frame for frame in watcher_frames.received)
    seal(gm, "ogre", "none", "swings")
    expect(watcher.get_by_test_id("tactics")).to_contain_text("risky gambit — “leaps from the parapet”")
    faces(gm, 15, 16, ann)  # Aria's big success (2) to none: degree 2, 3 RP + 1 for her winning gambit
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("rp-ogre")).to_have_text("4")
        expect(page.get_by_test_id("score-aria")).to_have_text("leading 4–0")
        expect(page.get_by_test_id("score-ogre")).to_have_text("behind 0–4")
    expect(ann.get_by_test_id("last")).to_contain_text("Aria lodges 4 RP against Ogre")
    expect(gm.get_by_test_id("confirm")).to_have_count(0)  # resolved: no answer awaited
    for page in (gm, ann, watcher):
        no_empty_move_box(page)

    # Round 2: the Ogre has the initiative; Aria answers with a defensive response and loses degree 1.
    start = gm.get_by_test_id("start-round")
    start.get_by_label("Initiative (chooses tactics first)").select_option("ogre")
    start.get_by_label("Responder").select_option("aria")
    start.get_by_role("button", name="Start the round").click()
    seal(gm, "ogre", "none", "bellows")
    seal(ann, "aria", "defensive", "raises her shield")
    faces(gm, 5, 16, ann)  # the Ogre 1 success to none: degree 1, 2 RP − 2 for her defence: nothing lodged
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("last")).to_contain_text("Ogre beats Aria: no resolution points")
        expect(page.get_by_test_id("rp-aria")).to_have_text("0")
        expect(page.get_by_test_id("score-aria")).to_have_text("leading 4–0")
    table = watcher.get_by_test_id("rp-table")
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table.locator("tbody tr").nth(1)).to_contain_text("round 2")
    expect(watcher.get_by_test_id("rp-chart").locator("polyline")).to_have_count(2)

    # Between rounds Ann's Brin assists Aria, Ann typing the faces: Brin misses, the resistance (10) rolls a
    # big success: degree 2, 3 RP on Aria. Then she shifts 2 of them onto Brin.
    ann.get_by_text("Assist a teammate").click()
    assist = ann.get_by_test_id("assist")
    expect(assist.get_by_test_id("assist-resistance")).to_contain_text("Resistance 10")
    assist.get_by_label("Helper", exact=True).select_option("brin")
    assist.get_by_label("Beneficiary", exact=True).select_option("aria")
    type_faces(assist, 20, 10)
    assist.get_by_role("button", name="Assist").click()
    ann.get_by_test_id("keep-brin").click()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("last")).to_contain_text("the resistance lodges 3 RP against Aria")
        expect(page.get_by_test_id("rp-aria")).to_have_text("3")
        expect(page.get_by_test_id("score-aria")).to_have_text("leading 4–3")
    ann.get_by_text("Assist a teammate").click()  # the form again: a second assist to Aria would face +5
    assist.get_by_label("Helper", exact=True).select_option("brin")
    expect(assist.get_by_test_id("assist-resistance")).to_contain_text("Resistance 15")
    shift = ann.get_by_test_id("shift-aria")
    shift.get_by_label("Shift RP from Aria to").select_option("brin")
    points = shift.get_by_label("Points", exact=True)
    expect(points).to_have_accessible_description("At most 3 RP, the RP against Aria.")  # said before sending
    shift.get_by_label("Points", exact=True).fill("2")
    shift.get_by_role("button", name="Shift RP").click()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("rp-aria")).to_have_text("1")
        expect(page.get_by_test_id("rp-brin")).to_have_text("2")
        expect(page.get_by_test_id("score-aria")).to_have_text("leading 4–1")
        expect(page.get_by_test_id("score-ogre")).to_have_text("behind 1–4")
    expect(watcher.get_by_test_id("assist")).to_have_count(0)
    expect(watcher.get_by_test_id("shift-aria")).to_have_count(0)
    # Bors, arriving later, may share Aria's tally but never her follower Brin's, though Brin is still in
    comrades = ann.get_by_test_id("join").locator("select[name=join-comrade] option")
    expect(comrades).to_have_text(["Aria"])

    # Followers are removed by otherwise unengaged opponents: Aria and the Ogre have met in the rounds, so
    # neither is offered; Brin may go after the wolf, and the wolf after Brin.
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("engaged-aria")).to_have_text("in the rounds with Ogre")
        expect(page.get_by_test_id("engaged-ogre")).to_have_text("in the rounds with Aria")
    ann.get_by_text("Engage an opposing follower").click()
    expect(ann.get_by_test_id("engage").get_by_label("Who engages").locator("option")).to_have_text(["Brin"])
    # The wolf engages Brin to remove him, the GM setting the resistance at Grab 18: 18 is a big success
    # (2) against Brin's 5 (1); under its own 11 it would have failed and Brin would have stayed.
    gm.get_by_text("Engage an opposing follower").click()
    engage = gm.get_by_test_id("engage")
    expect(engage.get_by_label("Who engages").locator("option")).to_have_text(["Wolf"])
    engage.get_by_label("Follower to remove").select_option("brin")
    engage.get_by_label("Resistance: ability").fill("Grab")
    engage.get_by_label("Resistance: rating").fill("18")
    type_faces(engage, 18, 5)
    engage.get_by_role("button", name="Engage").click()
    ann.get_by_test_id("keep-brin").click()
    for page in (ann, watcher):
        expect(page.get_by_test_id("last")).to_contain_text("Wolf beats Brin: Brin is removed")
        expect(page.get_by_test_id("contestant-brin")).to_contain_text("out: engaged and removed")
    expect(ann.get_by_test_id("shift-aria")).to_have_count(0)  # nobody left to shift RP onto
    expect(gm.get_by_test_id("engage")).to_have_count(0)  # no follower of the heroes left in
    expect(ann.get_by_test_id("engage")).to_have_count(0)  # Aria, engaged with the Ogre, may not go after the wolf

    # Bors arrives: the GM adds him to Aria's side; he shares her tally (1 RP) from now on.
    expect(watcher.get_by_test_id("contestant-bors")).to_contain_text("not yet in the sequence")
    expect(ann.get_by_test_id("join")).to_have_count(1)  # Ann may bring in her own PC too; a spectator may not
    expect(watcher.get_by_test_id("join")).to_have_count(0)
    gm.get_by_text("A late arrival joins").click()
    join = gm.get_by_test_id("join")
    join.get_by_label("Late arrival").select_option("bors")
    join.get_by_label("Joins (shares the tally of)").select_option("aria")
    join.get_by_role("button", name="Join").click()
    for page in (gm, ann, watcher):
        expect(page.get_by_test_id("contestant-bors")).to_contain_text("shared with Aria")
        expect(page.get_by_test_id("contestant-bors")).not_to_contain_text("not yet in the sequence")
        expect(page.get_by_test_id("rp-bors")).to_have_text("1")
        expect(page.get_by_test_id("join")).to_have_count(0)
    expect(watcher.get_by_test_id("engage")).to_have_count(0)
    chart = watcher.get_by_test_id("rp-chart")  # one line for the tally they share
    expect(chart.locator("polyline")).to_have_count(2)
    expect(chart.locator(".legend li").first).to_have_text("Aria & Bors")

    for page in (gm, ann, watcher):
        no_empty_move_box(page)
    # the player has no GM controls, the spectator no actions at all
    expect(ann.get_by_test_id("start-round")).to_have_count(0)
    expect(watcher.get_by_test_id("roll")).to_have_count(0)
    for page, where in ((gm, "scored GM console"), (ann, "scored player page"), (watcher, "scored spectator")):
        assert_accessible(page, where)
    screenshot(gm, "scored-gm")
    screenshot(watcher, "scored-spectator")
    assert pages.errors == []
