"""The replay viewer opened by the auditor link `agon import` prints, and by pasting that link."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from playwright.sync_api import Browser, expect

from tests.browser.conftest import assert_accessible, screenshot
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_import import agon, played


def test_the_auditor_link_opens_the_replay_viewer_in_a_browser(
    agon_server: ServerFactory, tmp_path: Path, browser: Browser
) -> None:
    source = agon_server(store=f"sqlite:{tmp_path / 'source' / 'a.sqlite3'}")
    # the Python client runs its own event loop, in a thread of its own (Playwright's sync API owns this one)
    with ThreadPoolExecutor(1) as pool:
        contest, _ = pool.submit(asyncio.run, played(source.ws_url)).result()
    log = tmp_path / "contest.jsonl"
    assert agon("export", contest, "--store", source.store, "-o", str(log), cwd=tmp_path).returncode == 0
    target = f"sqlite:{tmp_path / 'target' / 'b.sqlite3'}"
    server = agon_server(store=target)
    imported = agon("import", str(log), "--store", target, "--url", server.http_url, cwd=tmp_path)
    link = re.search(r"(http://\S+#t=eyJ\S+)", imported.stdout)
    assert link is not None, imported.stdout + imported.stderr

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(link.group(1))
        expect(page.get_by_test_id("verification")).to_contain_text("the log is intact")
        expect(page.get_by_test_id("verification")).to_contain_text("Imported contest: read-only")
        expect(page.get_by_text("Auditor · read-only")).to_be_visible()
        page.get_by_label("Seen as").select_option("~spectator")
        page.get_by_test_id("scrubber").fill("3")
        expect(page.get_by_role("heading", name=re.compile("Version 3 of"))).to_be_visible()
        assert_accessible(page, "auditor's replay viewer")
        screenshot(page, "auditor-replay")
        page.goto(f"{server.http_url}/#replay")
        expect(page.get_by_role("heading", name="Open a replay")).to_be_visible()
        assert_accessible(page, "open a replay")
        page.get_by_label("GM or auditor link").fill(link.group(1))
        page.get_by_role("button", name="Open").click()
        expect(page.get_by_test_id("verification")).to_contain_text("the log is intact")
        page.goto(f"{server.http_url}/#t=agon1.bm90.aGVsbG8")
        expect(page.get_by_test_id("link-problem")).to_contain_text("This link does not work")
        assert_accessible(page, "a link that does not work")
        page.goto(f"{server.http_url}/developers.html")
        assert_accessible(page, "developers page")
    finally:
        context.close()
