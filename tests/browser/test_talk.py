"""Table talk in Chromium. The GM creates a duel from the form, letting spectators read the talk; the GM, Ann,
Bo and a spectator (in dark mode) open their pages. A table line reaches all four; Ann's whisper to the GM shows
on Ann's and the GM's pages only, the GM's whisper to Bo on the GM's and Bo's only — neither is in any other
page's text, storage or WebSocket frames. `/roll 2d6+1` is drawn as two d6 and its total on every page; a reader
scrolled up is told how many lines came; a line too long is refused in words next to the input; the panel fits
a phone. The replay viewer shows each viewer's lines, those said after the version shown marked. Once the GM
concludes, the contest's export verifies with `agon verify`, Ann's roll checked against the revealed talk seed.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import Frames, Pages, assert_accessible, screenshot, storage
from tests.browser.test_refusals import seal
from tests.e2e.conftest import ServerFactory
from tests.test_cli import agon
from tests.web.test_refusals_catalogue import catalogue

WELCOME = "Welcome to the ford, everyone."
ANN_TO_GM = "I keep a knife in my boot for the orc."
GM_TO_BO = "The orc fears fire: nobody else knows."
FENCE = "Ready when you are."
LATE = "Is anyone still there?"


def create(gm: Page) -> None:
    """A duel from the form: Ann plays Aria, Bo plays the Orc; spectators may read the table talk."""
    gm.get_by_test_id("new-contest").click()
    gm.get_by_label("Title", exact=True).fill("Talk at the ford")
    gm.get_by_label("Prize", exact=True).fill("the ford")
    for i, (name, ability, rating, player) in enumerate((("Aria", "Sword", "15", "Ann"), ("Orc", "Axe", "12", "Bo"))):
        for field, value in (("name", name), ("ability", ability), ("rating", rating), ("player", player)):
            gm.locator(f"input[name=c{i}-{field}]").fill(value)
    setting = gm.get_by_test_id("talk-setting")
    expect(setting.get_by_label("Auditors may read whispers")).not_to_be_checked()
    setting.get_by_label("Spectators may read the table talk").check()
    gm.get_by_test_id("create").click()
    expect(gm.get_by_test_id("role")).to_have_text("GM console")


def talk(page: Page) -> Locator:
    return page.get_by_test_id("talk")


def line(page: Page, text: str) -> Locator:
    return talk(page).get_by_test_id("talk-line").filter(has_text=text)


def say(page: Page, text: str, to: str = "Everyone") -> None:
    """A line said from the page's panel (Enter sends it); the input empties once the server stored it."""
    panel = talk(page)
    panel.get_by_test_id("talk-to").select_option(label=to)
    box = panel.get_by_test_id("talk-input")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")


def assert_never_reached(page: Page, frames: Frames, secret: str, who: str) -> None:
    assert secret not in page.locator("body").inner_text(), f"{who}'s page shows {secret!r}"
    assert secret not in storage(page), f"{who}'s page keeps {secret!r}"
    assert not any(secret in frame for frame in frames.received), f"a frame to {who}'s page carries {secret!r}"


def test_table_talk_whispers_rolls_and_the_replay(agon_server: ServerFactory, pages: Pages, tmp_path: Path) -> None:
    server = agon_server()
    gm, gm_frames = pages.open(f"{server.http_url}/")
    create(gm)
    created = [f for f in gm_frames.sent if '"type":"create"' in f]
    assert created and '"talk":{"spectators":true,"auditors_whispers":false}' in created[0], created
    links = {
        who: gm.get_by_test_id(f"invite-{who}").locator("input.link").input_value()
        for who in ("ann", "bo", "spectator")
    }
    ann, ann_frames = pages.open(links["ann"])
    bo, bo_frames = pages.open(links["bo"])
    watcher, watcher_frames = pages.open(links["spectator"], color_scheme="dark")
    everyone = {"the GM": gm, "Ann": ann, "Bo": bo, "the spectator": watcher}
    for page in everyone.values():  # the spectator too: the GM let spectators read the talk
        expect(talk(page)).to_contain_text("Nothing said yet.")
    expect(talk(ann).get_by_test_id("talk-to").locator("option")).to_have_text(["Everyone", "the GM"])
    expect(talk(gm).get_by_test_id("talk-to").locator("option")).to_have_text(["Everyone", "Ann", "Bo"])

    # a table line reaches everyone, said by a name at a time of day
    say(gm, WELCOME)
    for who, page in everyone.items():
        said = line(page, WELCOME)
        expect(said, f"{who}").to_have_count(1)
        expect(said.locator(".talk-name")).to_have_text("GM")
        expect(said.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d$"))
        assert said.locator("time").get_attribute("title"), f"{who}: the full time is in the title"
    expect(talk(watcher)).to_contain_text("Spectators read the table talk")
    expect(talk(watcher).get_by_test_id("talk-input")).to_have_count(0)  # a spectator reads, never writes
    seal(ann, "aria", "wades in", 4)  # the contest moves on: the lines below are said at a later version
    expect(ann.get_by_test_id("seal-aria")).to_contain_text("sealed")

    # whispers: to their one recipient and their sender, marked as such
    say(ann, ANN_TO_GM, to="the GM")
    expect(line(ann, ANN_TO_GM).locator(".whisper-tag")).to_have_text("whisper to the GM")
    expect(line(gm, ANN_TO_GM).locator(".whisper-tag")).to_have_text("whisper from Ann")
    say(gm, GM_TO_BO, to="Bo")
    expect(line(gm, GM_TO_BO).locator(".whisper-tag")).to_have_text("whisper to Bo")
    expect(line(bo, GM_TO_BO).locator(".whisper-tag")).to_have_text("whisper from the GM")

    # a roll in the talk: server dice drawn as dice, with the expression and its total
    say(ann, "/roll 2d6+1 quick draw")
    for who, page in everyone.items():
        rolled = line(page, "quick draw")
        dice = rolled.locator("svg.rolled-die")
        expect(dice, f"{who}").to_have_count(2)
        faces = [int(dice.nth(i).get_attribute("data-face") or 0) for i in range(2)]
        assert [dice.nth(i).get_attribute("data-sides") for i in range(2)] == ["6", "6"], who
        assert all(1 <= f <= 6 for f in faces), (who, faces)
        expect(rolled.get_by_test_id("talk-total")).to_have_text(f"2d6+1 = {sum(faces) + 1}")
        expect(dice.first).to_have_attribute("aria-label", re.compile(r"^Ann's d6 showing [1-6]$"))

    # a line said after both whispers has reached every page: so would have the whispers, were they sent
    say(bo, FENCE)
    for who, page in everyone.items():
        expect(line(page, FENCE), f"{who}").to_have_count(1)
    assert_never_reached(bo, bo_frames, ANN_TO_GM, "Bo")
    assert_never_reached(watcher, watcher_frames, ANN_TO_GM, "the spectator")
    assert_never_reached(ann, ann_frames, GM_TO_BO, "Ann")
    assert_never_reached(watcher, watcher_frames, GM_TO_BO, "the spectator")
    expect(talk(gm).get_by_test_id("talk-line")).to_have_count(5)
    expect(talk(ann).get_by_test_id("talk-line")).to_have_count(4)
    expect(talk(bo).get_by_test_id("talk-line")).to_have_count(4)
    expect(talk(watcher).get_by_test_id("talk-line")).to_have_count(3)

    # a refusal in words next to the input, which keeps what was typed
    box = talk(ann).get_by_test_id("talk-input")
    box.fill("a" * 600)
    box.press("Enter")
    expect(talk(ann).get_by_test_id("talk-refusal")).to_contain_text(catalogue()["talk/too_long"])
    expect(box).to_have_value("a" * 600)
    box.fill("")
    assert_accessible(ann, "the player's table talk with a whisper, a roll and a refusal")
    assert_accessible(watcher, "the spectator's table talk, dark")
    screenshot(watcher, "table-talk-spectator-dark")
    screenshot(gm, "table-talk")  # on a phone too, where it fits 390 px

    # a reader who scrolled up stays there, told how many lines came since
    lines = talk(gm).get_by_test_id("talk-lines")
    lines.evaluate("(list) => { list.style.maxHeight = '6rem'; list.scrollTop = 0; }")  # as on a small screen
    say(bo, LATE)
    expect(line(gm, LATE)).to_have_count(1)
    expect(talk(gm).get_by_test_id("talk-new")).to_have_text("1 new ↓")
    assert lines.evaluate("(list) => list.scrollTop") == 0
    talk(gm).get_by_test_id("talk-new").click()
    expect(talk(gm).get_by_test_id("talk-new")).to_have_count(0)
    expect(line(gm, LATE)).to_be_in_viewport()
    lines.evaluate("(list) => { list.style.maxHeight = ''; }")
    gm.set_viewport_size({"width": 390, "height": 844})  # the panel on a phone: within the screen's width
    panel = talk(gm).bounding_box()
    assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= 390, panel

    # the replay: each viewer's lines, those said after the version shown marked
    gm.set_viewport_size({"width": 1280, "height": 900})
    gm.get_by_role("link", name="Replay viewer").click()
    replay = gm
    lines = replay.get_by_test_id("replay-talk").get_by_test_id("talk-line")
    expect(lines).to_have_count(6)
    lines.filter(has_text=WELCOME).get_by_role("button", name=re.compile("go to version")).click()
    expect(lines.filter(has_text=WELCOME)).not_to_contain_text("said later")
    for later in (ANN_TO_GM, GM_TO_BO, "quick draw", FENCE, LATE):
        expect(lines.filter(has_text=later)).to_contain_text("said later")
    replay.get_by_label("Seen as").select_option(label="Bo (player)")
    expect(replay.get_by_test_id("replay-talk")).to_contain_text("Table talk as Bo (player)")
    expect(lines).to_have_count(5)
    expect(lines.filter(has_text=GM_TO_BO).locator(".whisper-tag")).to_have_text("whisper from the GM")
    expect(lines.filter(has_text=ANN_TO_GM)).to_have_count(0)
    replay.get_by_label("Seen as").select_option(label="a spectator")
    expect(lines).to_have_count(4)
    assert_accessible(replay, "the replay viewer's table talk")

    # the GM concludes: the export carries the talk and its revealed seed, and `agon verify` checks Ann's roll
    replay.go_back()
    gm.get_by_test_id("conclude").click()
    gm.get_by_test_id("conclude-yes").click()
    expect(gm.get_by_test_id("whose-move")).to_have_text("The contest is concluded: nothing more to wait for.")
    contest = gm_frames.messages("welcome")[0]["contest"]
    exported = tmp_path / "talk.jsonl"
    export = agon("export", contest, "--store", server.store, "-o", str(exported), cwd=tmp_path, data=tmp_path)
    assert export.returncode == 0, export.stderr
    verified = agon("verify", str(exported), cwd=tmp_path, data=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "2 talk dice checked against the revealed talk seed" in verified.stdout, verified.stdout
    assert ANN_TO_GM not in exported.read_text()  # auditors may not read whispers: the export leaves them out
    assert pages.errors == [], pages.errors
