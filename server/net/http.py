"""The plain HTTP side of the server, answered during the opening handshake (websockets' ``process_request``).

- ``GET /``              the browser client (``clients/web``, see ``static.py``), and its files
- ``GET /ws``            the WebSocket (origin checked; 503 while shutting down); a WebSocket opened on
                         ``/`` gets an ``error`` (``protocol/wrong_path``) naming ``/ws``, then a close
- ``GET /healthz``       200 with the store's status, 503 when the store is unreachable
- ``GET /metrics``       Prometheus text
- ``GET /api/contests``  the contests of the owner whose token is in ``Authorization: Bearer <owner token>``

websockets reads no request bodies, so contests are opened over the WebSocket (``create``), not by POST.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.codec import to_builtins
from protocol.errors import Refused
from protocol.schema import schema_json
from server.net.context import ServerContext
from server.net.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.net.settings import Settings
from server.net.static import SECURITY_HEADERS, load_assets

log = logging.getLogger(__name__)

WS_PATH = "/ws"

RequestHandler = Callable[[ServerConnection, Request], Awaitable[Response | None]]


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_and_port(authority: str, default_port: int | None) -> tuple[str, int | None] | None:
    """``host[:port]`` split and lower-cased (None when it does not parse)."""
    try:
        parts = urlsplit(f"//{authority}")
        return (parts.hostname or "", parts.port if parts.port is not None else default_port)
    except ValueError:
        return None


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
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or parts.path not in ("", "/"):
        return False
    default = _DEFAULT_PORTS[parts.scheme]
    theirs, ours = _host_and_port(parts.netloc, default), _host_and_port(host, default)
    return theirs is not None and theirs[0] != "" and theirs == ours


def host_allowed(host: str | None, settings: Settings) -> bool:
    """Whether the ``Host`` header names this server: one of ``AGON_HOSTS`` when set; else, for a server
    on a loopback address, a loopback name; else the address it listens on (any name when it listens on
    every address). A DNS-rebinding page reaches a loopback server under a foreign name and is refused."""
    if not host:
        return False
    parsed = _host_and_port(host, None)
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
    return request.headers.get("Upgrade", "").lower() == "websocket"


def http_handler(ctx: ServerContext) -> RequestHandler:
    assets = load_assets()

    async def handle(connection: ServerConnection, request: Request) -> Response | None:
        path = urlsplit(request.path).path
        if path == WS_PATH or (path == "/" and _upgrading(request)):
            if ctx.draining:
                return _respond(connection, HTTPStatus.SERVICE_UNAVAILABLE, "shutting down\n", "text/plain")
            if not host_allowed(request.headers.get("Host"), ctx.settings):
                return _respond(connection, HTTPStatus.FORBIDDEN, "host not allowed\n", "text/plain")
            if not origin_allowed(request.headers.get("Origin"), request.headers.get("Host"), ctx.settings.origins):
                return _respond(connection, HTTPStatus.FORBIDDEN, "origin not allowed\n", "text/plain")
            return None
        if path == "/healthz":
            return await _health(connection, ctx)
        if path == "/metrics":
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
            await ctx.store.ping()
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
