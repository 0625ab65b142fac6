"""The plain HTTP side of the server, answered during the opening handshake (websockets' ``process_request``).

- ``GET /``              the browser client (``clients/web``, see ``static.py``), and its files
- ``GET /ws``            the WebSocket (origin checked; 503 while shutting down); a WebSocket opened on
                         ``/`` gets an ``error`` (``protocol/wrong_path``) naming ``/ws``, then a close
- ``GET /healthz``       200 with the store's status, 503 when the store is unreachable (one ping) or shutting down
- ``GET /readyz``        200 when every shard of the store can be read from and appended to (``readiness.py``),
                         503 naming the shards that cannot, or while shutting down
- ``GET /metrics``       Prometheus text
- ``GET /api/contests``  the contests of the owner whose token is in ``Authorization: Bearer <owner token>``

websockets reads no request bodies, so contests are opened over the WebSocket (``create``), not by POST.
``HEAD`` answers as ``GET`` without the body; any other method gets 405 with ``Allow``. Several
``X-Forwarded-For`` lines are read as one list. A request with more than one ``Host``, ``Origin`` or
``Authorization`` header, a ``Host`` that is not a plain host (a name, an IPv4 address or an [IPv6] address,
with an optional port), or a target that does not parse gets 400 with a one-line reason. Every answer but
the WebSocket's own 101 carries the security headers of ``static.py``, those websockets writes itself (400,
403, 405, 426, 500, 503) included (``secure_response``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers, MultipleValuesError
from websockets.http11 import Request, Response

from protocol.codec import to_builtins
from protocol.errors import Refused
from protocol.schema import schema_json
from server.net.context import ServerContext
from server.net.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.net.readiness import readiness
from server.net.settings import Settings
from server.net.static import SECURITY_HEADERS, load_assets

log = logging.getLogger(__name__)

WS_PATH = "/ws"

RequestHandler = Callable[[ServerConnection, Request], Awaitable[Response | None]]


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}


_HOST = re.compile(
    r"(?:(?P<name>[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?)"
    r"|\[(?P<ipv6>[0-9A-Fa-f:.]+)\])"
    r"(?::(?P<port>[0-9]{1,5}))?",
    re.ASCII,
)
_MAX_HOST = 261  # a 253-character name, a colon and five digits; or the longest bracketed IPv6 address
UNIQUE_HEADERS = ("Host", "Origin", "Authorization")
"""Headers a request may carry once only: each decides whom the server answers."""
LIST_HEADERS = ("X-Forwarded-For",)
"""List headers read later (``forwarded.py``): several lines of one are one list, joined in order (RFC 9110
§5.3), so that a proxy adding its own line after the client's is read, not refused or a traceback."""


def parse_host(authority: str, default_port: int | None = None) -> tuple[str, int | None] | None:
    """``host[:port]`` split, the host lower-cased (an IPv6 address without its brackets); None unless it is
    a plain host (a name, an IPv4 address or a bracketed IPv6 address) with an optional numeric port: no
    user, path, query or anything else."""
    if len(authority) > _MAX_HOST:
        return None
    match = _HOST.fullmatch(authority)
    if match is None:
        return None
    port = default_port if match["port"] is None else int(match["port"])
    if port is not None and not 0 < port < 65536:
        return None
    if match["ipv6"] is not None:
        try:
            return (str(ipaddress.IPv6Address(match["ipv6"])), port)
        except ValueError:
            return None
    return (match["name"].lower(), port)


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...] | None) -> bool:
    """No Origin (not a browser): allowed. Else the allow-list when there is one, or the server's own origin:
    an http(s) origin whose host and port are those the request was sent to (``Host``), default ports
    included (the server may sit behind a TLS proxy, so http and https are both the server's own)."""
    if origin is None:
        return True
    if allowed is not None:
        return "*" in allowed or origin.rstrip("/") in {a.rstrip("/") for a in allowed}
    if not host:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in _DEFAULT_PORTS or parts.path not in ("", "/") or parts.query or parts.fragment:
        return False
    default = _DEFAULT_PORTS[parts.scheme]
    theirs, ours = parse_host(parts.netloc, default), parse_host(host, default)
    return theirs is not None and theirs == ours


def host_allowed(host: str | None, settings: Settings) -> bool:
    """Whether the ``Host`` header names this server: one of ``AGON_HOSTS`` when set; else, for a server
    on a loopback address, a loopback name; else the address it listens on (any name when it listens on
    every address). A DNS-rebinding page reaches a loopback server under a foreign name and is refused.
    Only a plain host with an optional numeric port is taken (see ``parse_host``)."""
    if not host:
        return False
    parsed = parse_host(host)
    if parsed is None:
        return False
    name = parsed[0]
    if settings.hosts is not None:
        return "*" in settings.hosts or name in {h.lower() for h in settings.hosts}
    bound = settings.host.lower().strip("[]")
    if bound in LOOPBACK_NAMES:
        return name in LOOPBACK_NAMES
    if bound in ("", "0.0.0.0", "::"):
        return True
    return name == bound


def _respond(
    connection: ServerConnection,
    status: HTTPStatus,
    body: str | bytes,
    content_type: str,
    cache: str = "no-store",
) -> Response:
    data = body.encode() if isinstance(body, str) else body
    headers = Headers(SECURITY_HEADERS)
    headers["Content-Type"] = content_type
    headers["Content-Length"] = str(len(data))
    headers["Cache-Control"] = cache
    headers["Connection"] = "close"
    return Response(status.value, status.phrase, headers, data)


def _json(connection: ServerConnection, status: HTTPStatus, value: Any) -> Response:
    return _respond(connection, status, json.dumps(value, sort_keys=True) + "\n", "application/json")


def _bearer(request: Request) -> str | None:
    header = request.headers.get("Authorization")
    if header is None or not header.startswith("Bearer "):
        return None
    return header.removeprefix("Bearer ").strip() or None


def _upgrading(request: Request) -> bool:
    """A WebSocket handshake (answered on ``/`` with an error naming ``/ws``, see ``app.AgonServer``)."""
    return any(value.strip().lower() == "websocket" for value in request.headers.get_all("Upgrade"))


PAGE_METHODS = ("GET", "HEAD")
WS_METHODS = ("GET",)


def _bad_request(request: Request) -> str | None:
    """Why the server cannot tell what a request asks for (one line), or None."""
    for name in UNIQUE_HEADERS:
        if len(request.headers.get_all(name)) > 1:
            return f"more than one {name} header"
    host = request.headers.get("Host")
    if host is not None and parse_host(host) is None:
        return "the Host header is not a host name, an IPv4 address or an [IPv6] address with an optional port"
    return None


def _join_lists(request: Request) -> None:
    """Several lines of a list header become one line, their values joined in order."""
    for name in LIST_HEADERS:
        values = request.headers.get_all(name)
        if len(values) > 1:
            del request.headers[name]
            request.headers[name] = ", ".join(values)


def _refuse(connection: ServerConnection, status: HTTPStatus, reason: str) -> Response:
    return _respond(connection, status, reason + "\n", "text/plain; charset=utf-8")


def _not_allowed(connection: ServerConnection, methods: tuple[str, ...]) -> Response:
    response = _refuse(connection, HTTPStatus.METHOD_NOT_ALLOWED, f"method not allowed: use {' or '.join(methods)}")
    response.headers["Allow"] = ", ".join(methods)
    return response


def secure_response(connection: ServerConnection, request: Request, response: Response) -> None:
    """websockets' ``process_response``: every answer but the WebSocket's 101 carries the security headers,
    those websockets writes itself (a handshake it cannot read, an upgrade missing, a method it refuses) too."""
    if response.status_code == HTTPStatus.SWITCHING_PROTOCOLS:
        return
    for name, value in SECURITY_HEADERS.items():
        if name not in response.headers:
            response.headers[name] = value
    if "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"


def http_handler(ctx: ServerContext) -> RequestHandler:
    assets = load_assets()

    async def handle(connection: ServerConnection, request: Request) -> Response | None:
        try:
            return await answer(connection, request)
        except MultipleValuesError as error:  # a header read once only, sent more than once
            return _refuse(connection, HTTPStatus.BAD_REQUEST, f"bad request: more than one {error.args[0]} header")

    async def answer(connection: ServerConnection, request: Request) -> Response | None:
        _join_lists(request)
        reason = _bad_request(request)
        try:
            path = urlsplit(request.path).path
        except ValueError:
            path, reason = "", reason or "the request target is not a path"
        if reason is not None:
            return _refuse(connection, HTTPStatus.BAD_REQUEST, f"bad request: {reason}")
        if path == WS_PATH or (path == "/" and _upgrading(request)):
            if request.method not in WS_METHODS:
                return _not_allowed(connection, WS_METHODS)
            if ctx.draining:
                return _respond(connection, HTTPStatus.SERVICE_UNAVAILABLE, "shutting down\n", "text/plain")
            if not host_allowed(request.headers.get("Host"), ctx.settings):
                return _respond(connection, HTTPStatus.FORBIDDEN, "host not allowed\n", "text/plain")
            if not origin_allowed(request.headers.get("Origin"), request.headers.get("Host"), ctx.settings.origins):
                return _respond(connection, HTTPStatus.FORBIDDEN, "origin not allowed\n", "text/plain")
            return None
        if request.method not in PAGE_METHODS:
            return _not_allowed(connection, PAGE_METHODS)
        response = await page(connection, request, path)
        if request.method == "HEAD":
            response.body = b""  # the headers of GET, Content-Length included
        return response

    async def page(connection: ServerConnection, request: Request, path: str) -> Response:
        if path == "/healthz":
            return await _health(connection, ctx)
        if path == "/readyz":
            return _json(connection, *await readiness(ctx))
        if path == "/metrics":
            await readiness(ctx)  # agon_ready and agon_store_shard_up as of this scrape (cached for a second)
            return _respond(connection, HTTPStatus.OK, ctx.metrics.render(), METRICS_CONTENT_TYPE)
        if path == "/api/contests":
            if not host_allowed(request.headers.get("Host"), ctx.settings):
                return _respond(connection, HTTPStatus.FORBIDDEN, "host not allowed\n", "text/plain")
            return await _contests(connection, ctx, request)
        if path == "/schema.json":
            return _respond(connection, HTTPStatus.OK, schema_json() + "\n", "application/json")
        asset = assets.get(path)
        if asset is not None:
            return _respond(connection, HTTPStatus.OK, asset.body, asset.content_type, cache="no-cache")
        return _respond(connection, HTTPStatus.NOT_FOUND, "not found\n", "text/plain")

    return handle


async def _health(connection: ServerConnection, ctx: ServerContext) -> Response:
    try:
        async with asyncio.timeout(ctx.settings.health_timeout):
            await ctx.backend.ping()
    except Exception as error:
        log.warning("health check: store unreachable: %s", error)
        body = {"status": "unavailable", "store": "unreachable", "draining": ctx.draining}
        return _json(connection, HTTPStatus.SERVICE_UNAVAILABLE, body)
    status = HTTPStatus.SERVICE_UNAVAILABLE if ctx.draining else HTTPStatus.OK
    body = {
        "status": "draining" if ctx.draining else "ok",
        "store": "ok",
        "draining": ctx.draining,
        "connections": int(ctx.metrics.connections.value()),
        "followed_contests": len(ctx.hub),
    }
    if ctx.service.lost:
        # Loud, yet still serving: the store lost events it had acknowledged (see docs/security.md).
        body["status"] = "lost_events"
        body["lost_events"] = dict(ctx.service.lost)
    return _json(connection, status, body)


async def _contests(connection: ServerConnection, ctx: ServerContext, request: Request) -> Response:
    token = _bearer(request)
    if token is None:
        return _json(connection, HTTPStatus.UNAUTHORIZED, {"code": "auth/unauthenticated", "message": "no token"})
    try:
        claims = ctx.tokens.verify(token)
        if claims.role != "owner":
            return _json(connection, HTTPStatus.FORBIDDEN, {"code": "auth/forbidden", "message": "not an owner token"})
        contests = await ctx.lobby.contests(claims.seat)
    except Refused as refused:
        return _json(connection, HTTPStatus.UNAUTHORIZED, {"code": refused.code, "message": refused.message})
    except Exception as error:
        log.warning("listing contests failed: %s", error)
        return _json(connection, HTTPStatus.SERVICE_UNAVAILABLE, {"code": "store/unavailable", "message": "try again"})
    return _json(connection, HTTPStatus.OK, {"contests": to_builtins(contests)})
