"""A Karbon scene in browsers against a real `agon serve`: the GM creates it through the form with physical
dice, the player joins by link; both see the pool, the hands as dice, the chips and the victory track. Every
choice among particular dice is made by tapping the dice on the board: the GM taps the hands drawn at the table,
the player taps the dice of a break and of a glitch, reads what the choice will do, and confirms it; dice that
may not be chosen are not buttons, and a tap beyond a limit says why. No page shows a die's id. The next
contest's numbers come from the seed's guides."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Pages, assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory

DIE_ID = re.compile(r"(?<![\w-])[dr]\d+-\d+(?![\w-])")  # a die's id (d6-4, d10-1, r6-3): never on a page


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


def die(page: Page, row: str, name: str) -> Locator:
    """The first die button of a row of the board with this accessible name."""
    return page.get_by_test_id(row).get_by_role("button", name=name, exact=True).first


def no_die_ids(*pages: Page) -> None:
    for page in pages:
        page.wait_for_timeout(200)  # the last patches and notices
        text = page.locator("body").inner_text()
        shown = [text[max(0, m.start() - 40) : m.end() + 40] for m in DIE_ID.finditer(text)]
        assert shown == [], f"the page shows die ids: {shown}"


def test_a_karbon_round_is_played_by_tapping_the_dice(agon_server: ServerFactory, pages: Pages) -> None:
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create_scene(gm)
    link = gm.get_by_test_id("invite-ann").locator("input.link").input_value()
    ann, _ = pages.open(link)
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(ann.get_by_test_id("pool").locator(".die")).to_have_count(15)
    expect(ann.get_by_test_id("reserve").locator(".die")).to_have_count(5)

    # the GM sets up a contest, then taps the hands drawn at the table in the main pool
    start = gm.get_by_test_id("start-contest")
    start.get_by_test_id("goal").fill("slip past the guards")
    start.get_by_test_id("ability").fill("Stealth")
    start.get_by_test_id("level").fill("5")
    start.get_by_test_id("challenge").fill("2")
    start.get_by_test_id("consequence").fill("1")
    expect(start).to_contain_text("0–15.")  # the level's limit, said next to it
    start.get_by_role("button", name="Start the contest").click()
    expect(gm.get_by_test_id("draw-hands")).to_contain_text("5 dice for the agent's hand")
    pool = gm.get_by_test_id("pool")
    expect(pool.get_by_role("button")).to_have_count(15)
    expect(gm.get_by_test_id("reserve").get_by_role("button")).to_have_count(0)  # not part of the draw
    expect(ann.get_by_test_id("pool").get_by_role("button")).to_have_count(0)  # the GM's choice, not the player's
    die(gm, "pool", "the sixth d6").click()
    expect(gm.get_by_test_id("die-d6-6")).to_have_attribute("aria-pressed", "true")
    expect(gm.get_by_test_id("die-d6-6")).to_have_accessible_name("the sixth d6, for the agent's hand")
    gm.get_by_test_id("die-d6-6").click()  # tapped again: back in the pool
    expect(gm.get_by_test_id("die-d6-6")).to_have_attribute("aria-pressed", "false")
    # by keyboard: Enter on the first d6, Tab to the next, Space
    die(gm, "pool", "the first d6").focus()
    gm.keyboard.press("Enter")
    gm.keyboard.press("Tab")
    gm.keyboard.press("Space")
    expect(gm.get_by_test_id("die-d6-2")).to_have_attribute("aria-pressed", "true")
    for name in ("the third d6", "the fourth d6", "the fifth d6", "the first d10", "the second d10"):
        die(gm, "pool", name).click()
    sentence = gm.get_by_test_id("dice-sentence")
    expect(sentence).to_have_text(
        "The agent's hand: d6, d6, d6, d6 and d6 (5 of 5); the narrator's hand: d10 and d10 (2 of 2)."
    )
    die(gm, "pool", "the first d8").click()  # one too many: it says why, and stays in the pool
    expect(gm.get_by_test_id("dice-why")).to_contain_text("Both hands are full")
    expect(gm.get_by_test_id("die-d8-1")).to_have_attribute("aria-pressed", "false")
    assert_accessible(gm, "karbon hands tapped")
    screenshot(gm, "karbon-draw")
    gm.get_by_role("button", name="Enter the hands").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("hand-agent").locator(".die")).to_have_count(5)
        expect(page.get_by_test_id("hand-narrator").locator(".die")).to_have_count(2)
        expect(page.get_by_test_id("pool").locator(".die")).to_have_count(8)
        expect(page.get_by_test_id("track")).to_have_text("·")
    expect(gm.locator(".board button.die")).to_have_count(0)  # no choice open: the dice are not buttons

    # the player declares no risk; only then may the GM type the faces
    expect(gm.get_by_test_id("faces")).to_have_count(0)
    ann.get_by_test_id("no-risk").click()
    expect(ann.get_by_test_id("risk")).to_have_text("No risk this round.")
    expect(gm.get_by_label("Agent's fifth d6", exact=True)).to_be_visible()  # each die by its kind and place, no id
    expect(gm.get_by_label("Narrator's second d10", exact=True)).to_be_visible()
    for name in ("d6-1", "d6-2", "d6-3", "d6-4", "d6-5"):
        gm.get_by_test_id(f"face-{name}").fill("2")
    gm.get_by_test_id("face-d10-1").fill("4")
    gm.get_by_test_id("face-d10-2").fill("9")
    gm.get_by_role("button", name="Enter the faces").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("last-roll")).to_contain_text("Vera wins the round")
        expect(page.get_by_test_id("hand-chips-agent")).to_have_text("5")
        expect(page.get_by_test_id("die-d10-2")).to_have_attribute("aria-label", "d10 showing 9, a turncoat")
    expect(ann.get_by_label("contest log")).to_contain_text("narrator d10 showing 4, d10 showing 9")  # no die ids
    expect(gm.get_by_test_id("test-agent")).to_have_count(0)  # the player stacks the agent's chips
    expect(ann.get_by_test_id("stack-limit-agent")).to_contain_text("5 chips in hand, so stack 1 to 5")
    expect(ann.get_by_test_id("stack-limit-agent")).to_contain_text("5 more make a break")
    assert_accessible(ann, "karbon test")
    screenshot(ann, "karbon-test")

    # the player stacks five chips: a break, marked X, chosen by tapping the dice
    ann.get_by_test_id("stack-agent-5").click()
    expect(ann.get_by_test_id("break-choices")).to_be_visible()
    expect(gm.get_by_test_id("break-choices")).to_have_count(0)
    expect(gm.get_by_test_id("track")).to_have_text("X")
    expect(ann.get_by_test_id("break-choices")).to_contain_text("no peril die to remove")
    expect(ann.get_by_test_id("peril-dice")).to_have_count(0)
    expect(ann.get_by_test_id("pool").get_by_role("button")).to_have_count(0)  # a break takes nothing from the pool
    expect(ann.get_by_test_id("pool").locator(".die")).to_have_count(8)
    expect(gm.locator(".board button.die")).to_have_count(0)  # the player's choice: the GM's dice stay dice
    sentence = ann.get_by_test_id("dice-sentence")
    confirm = ann.get_by_test_id("dice-confirm")
    die(ann, "hand-agent", "d10 showing 9, a turncoat").click()
    expect(sentence).to_have_text("Your d10 showing 9 to trade: now tap one die of the reserve to take in its place.")
    expect(confirm).to_be_disabled()
    die(ann, "reserve", "the first d6").click()
    die(ann, "reserve", "the second d6").click()  # two for one: not yet a trade
    expect(sentence).to_contain_text("tap one more of your dice, or let a reserve die go")
    expect(confirm).to_be_disabled()
    ann.get_by_test_id("die-r6-2").click()  # tapped again: let go
    expect(ann.get_by_test_id("die-r6-2")).to_have_attribute("aria-pressed", "false")
    expect(ann.get_by_test_id("die-r6-1")).to_have_attribute("aria-pressed", "true")
    expect(sentence).to_have_text(
        "Break with your d10 showing 9 and the reserve's d6: a stunning plan, and your d10 showing 9 goes to the"
        " reserve while the reserve's d6 joins your hand."
    )
    expect(confirm).to_be_enabled()
    assert_accessible(ann, "karbon break by tapping")
    screenshot(ann, "karbon-break")
    no_die_ids(gm, ann)
    confirm.click()
    for page in (gm, ann):
        expect(page.get_by_test_id("outcome")).to_contain_text("won")
        expect(page.get_by_test_id("reserve").locator(".die.d10")).to_have_count(1)  # traded into the reserve
        expect(page.get_by_test_id("reserve").locator(".die")).to_have_count(5)
        expect(page.get_by_test_id("spent").locator(".die")).to_have_count(7)
    expect(ann.locator(".board button.die")).to_have_count(0)
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

    # the pool's eight dice make the two hands: two d6 for the agent, five d8 and a d10 for the narrator
    for name in ("the first d6", "the second d6", "the first d8", "the second d8", "the third d8", "the fourth d8"):
        die(gm, "pool", name).click()
    die(gm, "pool", "the fifth d8").click()
    die(gm, "pool", "d10").click()
    gm.get_by_role("button", name="Enter the hands").click()
    ann.get_by_test_id("no-risk").click()
    faces = {"d6-6": 1, "d6-7": 1, "d8-1": 1, "d8-2": 1, "d8-3": 4, "d8-4": 4, "d8-5": 5, "d10-3": 4}
    for name, face in faces.items():
        gm.get_by_test_id(f"face-{name}").fill(str(face))
    gm.get_by_role("button", name="Enter the faces").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("last-roll")).to_contain_text("a tie in hits")  # both sides earn and stack

    # the GM corrects both hands up to five chips; each correction's limits are said before it is sent
    gm.get_by_text("Change the challenge or the peril; corrections").click()
    correct = gm.locator("details.adjust")
    for target, now in (("agent_hand", "Now 2; chips in hand stay 0–1,000, so −2 to +998."), ("narrator_hand", "")):
        correct.get_by_label("Count").select_option(target)
        if now:
            expect(correct).to_contain_text(now)
        correct.get_by_label("Change (+/−)").fill("3")
        correct.get_by_label("Reason").fill("the alarm bell")
        correct.get_by_role("button", name="Correct", exact=True).click()
    for page in (gm, ann):
        expect(page.get_by_test_id("hand-chips-agent")).to_have_text("5")
        expect(page.get_by_test_id("hand-chips-narrator")).to_have_text("5")

    # a break: two of the narrator's dice, and a third tap says why it is refused
    ann.get_by_test_id("stack-agent-5").click()
    expect(ann.get_by_test_id("break-choices")).to_be_visible()
    die(ann, "hand-narrator", "d8 showing 1, a hit").click()
    die(ann, "hand-narrator", "d8 showing 4, a miss").click()
    die(ann, "hand-narrator", "d8 showing 5, a miss").click()
    expect(ann.get_by_test_id("dice-why")).to_contain_text("A slim opening takes two of the narrator's dice")
    expect(ann.get_by_test_id("die-d8-5")).to_have_attribute("aria-pressed", "false")
    expect(ann.get_by_test_id("dice-sentence")).to_have_text(
        "Break with the narrator's d8 showing 1 and d8 showing 4: a slim opening, and they leave the narrator's hand"
        " and join yours."
    )
    ann.get_by_role("button", name="Confirm the break").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("hand-agent").locator(".die")).to_have_count(4)
        expect(page.get_by_test_id("hand-narrator").locator(".die")).to_have_count(4)
        expect(page.get_by_test_id("track")).to_have_attribute("aria-label", "1 X, 0 O of 3")

    # the narrator stacks five: a glitch, and the player is side-swiped, tapping the two dice it takes
    gm.get_by_test_id("stack-narrator-5").click()
    expect(ann.get_by_test_id("glitch-choices")).to_be_visible()
    expect(ann.get_by_test_id("hand-agent").get_by_role("button")).to_have_count(0)  # only the narrator's dice
    expect(ann.get_by_test_id("reserve").get_by_role("button")).to_have_count(0)
    die(ann, "hand-narrator", "d10 showing 4, a miss").click()
    expect(ann.get_by_test_id("dice-sentence")).to_contain_text("tap 1 more of the narrator's dice")
    die(ann, "hand-narrator", "d8 showing 5, a miss").click()
    expect(ann.get_by_test_id("dice-sentence")).to_have_text(
        "Glitch, side-swiped with the narrator's d10 showing 4 and d8 showing 5: your win (X) is erased, and the dice"
        " join your hand."
    )
    assert_accessible(ann, "karbon glitch by tapping")
    screenshot(ann, "karbon-glitch")
    no_die_ids(gm, ann)
    ann.get_by_role("button", name="Confirm the glitch").click()
    for page in (gm, ann):
        expect(page.get_by_test_id("track")).to_have_attribute("aria-label", "0 X, 1 O of 3")
        expect(page.get_by_test_id("hand-agent").locator(".die.d10")).to_have_count(1)
        expect(page.get_by_test_id("hand-agent").locator(".die")).to_have_count(6)
        expect(page.get_by_test_id("hand-narrator").locator(".die")).to_have_count(2)
    no_die_ids(gm, ann)
    assert_accessible(gm, "karbon after the glitch")
    assert pages.errors == []


def test_the_player_backs_out_of_a_contest_after_a_confirmation(agon_server: ServerFactory, pages: Pages) -> None:
    """Backing out is offered to the agent's player and the GM while a contest is played: the button first
    says what it will do; "No" keeps the contest, "Yes" ends it with no outcome, and the GM sets up the next."""
    server = agon_server()
    gm, _ = pages.open(f"{server.http_url}/")
    create_scene(gm)
    ann, _ = pages.open(gm.get_by_test_id("invite-ann").locator("input.link").input_value())
    expect(ann.get_by_test_id("role")).to_have_text("Player: Ann")
    expect(ann.get_by_test_id("back-out")).to_have_count(0)  # no contest yet
    start = gm.get_by_test_id("start-contest")
    start.get_by_test_id("goal").fill("slip past the guards")
    start.get_by_test_id("ability").fill("Stealth")
    start.get_by_test_id("level").fill("2")
    start.get_by_test_id("challenge").fill("1")
    start.get_by_test_id("consequence").fill("2")
    start.get_by_role("button", name="Start the contest").click()
    expect(gm.get_by_test_id("draw-hands")).to_be_visible()
    expect(gm.get_by_test_id("back-out")).to_have_text("Back out of this contest")  # the GM may too

    ann.get_by_test_id("back-out").click()
    question = ann.get_by_role("group", name=re.compile("^Back out of contest 1"))
    expect(question).to_contain_text("Back out of contest 1, “slip past the guards”? It ends with no outcome")
    question.get_by_role("button", name="No").click()  # nothing is sent
    expect(ann.get_by_test_id("back-out")).to_be_visible()
    expect(gm.get_by_test_id("draw-hands")).to_be_visible()

    ann.get_by_test_id("back-out").click()
    assert_accessible(ann, "karbon backing out, asked")
    screenshot(ann, "karbon-back-out")
    ann.get_by_test_id("back-out-yes").click()
    expect(ann.get_by_test_id("back-out")).to_have_count(0)
    expect(gm.get_by_test_id("start-contest")).to_be_visible()  # the GM sets up the next contest
    expect(gm.get_by_test_id("whose-move")).to_contain_text("set up the next contest")
    expect(ann.get_by_test_id("pool").locator(".die")).to_have_count(15)  # no hand was drawn
    expect(gm.get_by_test_id("timeline")).to_contain_text("Vera backs out of contest 1")
