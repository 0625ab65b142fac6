"""Invitation links and tokens: where the server is and which contest a token opens, read from the token.

A token is a JWT, ``<header>.<claims>.<signature>`` (``eyJ...``), or an ``agon1.<claims>.<signature>`` token
of Agon 0.1; its claims are unpadded base64url JSON (``{"contest": ..., "role": ..., "seat": ..., "exp":
...}``), readable by anyone holding it (only the server can check the signature). An invitation link carries
the token in its fragment, which browsers never send to a server: ``http://HOST:PORT/#t=eyJ...`` (or
``#token=...`` among other fragment parameters, or the bare token after ``#``).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import msgspec

from protocol.messages import TokenRole

TOKEN = re.compile(r"(?:agon1|eyJ[A-Za-z0-9_-]*)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
"""A JWT (its header is JSON: base64url ``eyJ...``), or an ``agon1.`` token of Agon 0.1."""


class BadLink(ValueError):
    """Not an invitation link or a token (the message says why)."""


class TokenClaims(msgspec.Struct, frozen=True):
    contest: str
    role: TokenRole
    seat: str
    exp: int  # unix seconds


@dataclass(frozen=True)
class Invitation:
    token: str
    claims: TokenClaims
    server: str | None  # the WebSocket URL (ws://HOST:PORT/ws), when the link names a server

    @property
    def contest(self) -> str:
        return self.claims.contest


def claims_of(token: str) -> TokenClaims:
    """The claims a token carries (not verified: only the server can verify a token)."""
    parts = token.split(".")
    if len(parts) != 3 or not (parts[0] == "agon1" or parts[0].startswith("eyJ")):
        raise BadLink("not an Agon token (a JWT, eyJ...)")
    try:
        raw = base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4))
        return msgspec.json.decode(raw, type=TokenClaims)
    except (binascii.Error, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        raise BadLink("the token's claims cannot be read: is it cut short?") from None


def websocket_url(base: str) -> str:
    """``http://h:p/anything`` → ``ws://h:p/ws`` (``https`` → ``wss``); a ws URL is kept as it is."""
    parts = urlsplit(base)
    if parts.scheme in ("ws", "wss"):
        return base if parts.path not in ("", "/") else f"{parts.scheme}://{parts.netloc}/ws"
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadLink(f"{base!r}: not an http(s) or ws(s) address")
    return f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}/ws"


def server_url(server: str) -> str:
    """The WebSocket URL of a server given by its address: a ws(s) URL as it is; an http(s) one as ws(s), at
    ``/ws`` when it names no path (``http://h:p`` → ``ws://h:p/ws``, ``https://h/agon/ws`` → ``wss://h/agon/ws``)."""
    parts = urlsplit(server.strip())
    if parts.scheme in ("ws", "wss", "http", "https") and parts.netloc:
        scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
        path = "/ws" if parts.scheme in ("http", "https") and parts.path in ("", "/") else parts.path
        return parts._replace(scheme=scheme, path=path, fragment="").geturl()
    raise BadLink(f"{server!r}: not a server address: expected ws://HOST:PORT/ws (or http://HOST:PORT)")


def parse(link: str, server: str | None = None) -> Invitation:
    """An invitation link (``http://HOST:PORT/#TOKEN``) or a bare token; ``server`` (a ws(s) URL, or an http(s)
    address: see ``server_url``) overrides the link's."""
    link = link.strip()
    if link.startswith(("agon1.", "eyJ")):
        token, where = link, None
    else:
        parts = urlsplit(link)
        if not parts.scheme or not parts.netloc:
            raise BadLink(f"{link[:40]!r}: neither a token (eyJ....) nor a link (http://HOST:PORT/#...)")
        fragment = parts.fragment
        named = parse_qs(fragment).get("token")
        found = named[0] if named else (m.group(0) if (m := TOKEN.search(fragment)) else None)
        if found is None:
            raise BadLink("the link holds no token after '#': copy the whole invitation link")
        token, where = found, websocket_url(link)
    return Invitation(token=token, claims=claims_of(token), server=server_url(server) if server else where)
