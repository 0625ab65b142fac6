"""Browser tests: a real `agon serve` and the distribution's Chromium driven by Playwright.

Chromium is never downloaded: `tests/run` installs the Debian package when /usr/bin/chromium is missing.
Every page is checked with axe-core (vendored, served by the server itself); screenshots at desktop width and
at 390 px go to ``test-screenshots/`` (ignored by git), or to ``AGON_SCREENSHOTS``: ``AGON_SCREENSHOTS=docs/screenshots
tests/run tests/browser`` refreshes the README's pictures.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.e2e.conftest import agon_server  # noqa: F401  (the fixture, shared with the e2e tests)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(os.environ.get("AGON_SCREENSHOTS", Path(__file__).resolve().parents[2] / "test-screenshots"))
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


# Module-scoped: Playwright's sync API keeps an event loop running while it is started, which the asyncio
# tests that follow must not find.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), "tests/run installs chromium with apt"
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield launched
    launched.close()


class Frames:
    """Every WebSocket frame a page receives and sends, and every request it makes."""

    def __init__(self, page: Page) -> None:
        self.received: list[str] = []
        self.sent: list[str] = []
        self.requests: list[str] = []
        self.sockets: list[str] = []  # the URL of every WebSocket the page opens
        page.on("websocket", self._socket)
        page.on("request", lambda request: self.requests.append(request.url))

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws.url)
        ws.on("framereceived", lambda payload: self.received.append(_text(payload)))
        ws.on("framesent", lambda payload: self.sent.append(_text(payload)))

    def messages(self, kind: str) -> list[dict[str, Any]]:
        out = []
        for frame in self.received:
            message = json.loads(frame)
            if message.get("type") == kind:
                out.append(message)
        return out


def _text(payload: str | bytes) -> str:
    return payload if isinstance(payload, str) else payload.decode("utf-8", "replace")


class Pages:
    """Browser contexts (one per person at the table), each with its pages, its frames and its console errors."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def open(self, url: str, viewport: dict[str, int] | None = None, **options: Any) -> tuple[Page, Frames]:
        """A page of its own browser context at ``url``; ``options`` are the context's (``color_scheme``,
        ``has_touch``...)."""
        context = self.browser.new_context(viewport=viewport or DESKTOP, **options)  # type: ignore[arg-type]
        self.contexts.append(context)
        page = context.new_page()
        frames = Frames(page)
        page.on("pageerror", lambda error: self.errors.append(f"{url}: {error}"))
        page.on(
            "console",
            lambda message: self.errors.append(f"{url}: {message.text}") if message.type == "error" else None,
        )
        page.goto(url)
        return page, frames

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Browser) -> Iterator[Pages]:
    opened = Pages(browser)
    try:
        yield opened
    finally:
        opened.close()


def axe(page: Page) -> list[dict[str, Any]]:
    """The serious and critical accessibility violations axe-core finds on the page as it is now."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        origin = page.evaluate("() => location.origin")
        page.add_script_tag(url=f"{origin}/vendor/axe.min.js")
    violations: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const result = await axe.run(document, { resultTypes: ['violations'] });
          return result.violations
            .filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')) }));
        }"""
    )
    return violations


def assert_accessible(page: Page, where: str) -> None:
    violations = axe(page)
    assert violations == [], f"{where}: {json.dumps(violations, indent=2)}"


def screenshot(page: Page, name: str) -> None:
    """``name``.png at the page's width and ``name``-phone.png at 390 px, where the page must fit: nothing on a
    phone scrolls sideways (every page a test shows is measured so)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or DESKTOP
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(150)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    width = int(page.evaluate("() => document.documentElement.scrollWidth"))
    assert width <= PHONE["width"], f"{name}: {width} px wide on a {PHONE['width']} px phone (it scrolls sideways)"
    page.set_viewport_size(size)


def storage(page: Page) -> str:
    """Everything the page keeps in localStorage and sessionStorage."""
    dump: str = page.evaluate(
        "() => JSON.stringify([Object.assign({}, localStorage), Object.assign({}, sessionStorage)])"
    )
    return dump
