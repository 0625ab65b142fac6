"""The browser client: the files of ``clients/web`` (package data), served with strict security headers.

The set of files is read once at start-up, so a request can only ever name one of them (no path is
joined with anything a client sent). Every response of the server carries the same headers: a
Content-Security-Policy that allows scripts, styles, images and WebSocket connections from this origin
only (no inline script or style, no eval, no frames, no plugins), ``nosniff`` and ``no-referrer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "font-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}

INDEX = "index.html"


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str


def _walk(folder: Traversable, prefix: str) -> dict[str, Asset]:
    found: dict[str, Asset] = {}
    for entry in folder.iterdir():
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            found.update(_walk(entry, name))
            continue
        suffix = "." + entry.name.rsplit(".", 1)[-1] if "." in entry.name else ""
        content_type = MIME_TYPES.get(suffix)
        if content_type is not None:
            found[name] = Asset(entry.read_bytes(), content_type)
    return found


def load_assets() -> dict[str, Asset]:
    """Every servable file of the browser client by URL path (``/`` is ``index.html``)."""
    assets = _walk(resources.files("clients").joinpath("web"), "")
    if f"/{INDEX}" in assets:
        assets["/"] = assets[f"/{INDEX}"]
    return assets
