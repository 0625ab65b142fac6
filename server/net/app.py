"""The WebSocket server of one process, its HTTP endpoints, and a graceful shutdown (``server.serving`` runs it
as ``agon serve``).

On SIGTERM (or SIGINT) the server stops accepting connections, lets in-flight appends finish and be
answered, then closes every socket with 1001 (going away); clients reconnect — to this process when it is
back, or to another one sharing the store — and resume from the last version they saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from types import TracebackType
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from protocol import errors
from protocol.codec import encode
from protocol.messages import Error
from server.backend import Backend
from server.net.auth import Tokens, previous_secrets, server_secret
from server.net.connection import Connection
from server.net.context import ServerContext
from server.net.forwarded import client_address, trusted
from server.net.http import WS_PATH, http_handler, secure_response
from server.net.lobby import Lobby
from server.net.metrics import ServerMetrics
from server.net.settings import Settings
from server.net.sockets import AddressCount, admit, capped_connections

log = logging.getLogger(__name__)


class AgonServer:
    """One server process: start it, read its URL, shut it down (or use it as an async context manager)."""

    def __init__(self, settings: Settings, backend: Backend, metrics: ServerMetrics) -> None:
        self.settings = settings
        self.backend = backend
        tokens = Tokens(
            server_secret(settings.data_dir, settings.secret),
            previous=previous_secrets(settings.data_dir, settings.previous_secret, settings.previous_until),
            public_key=settings.jwt_public_key,
        )
        self.context = ServerContext(
            settings=settings,
            backend=backend,
            lobby=Lobby(backend.service, backend.owners, tokens, settings),
            tokens=tokens,
            metrics=metrics,
        )
        self.sockets = AddressCount(settings.max_connections_address)
        self._server: Server | None = None

    async def _handle(self, ws: ServerConnection) -> None:
        if ws.request is not None and urlsplit(ws.request.path).path != WS_PATH:
            await _wrong_path(ws)
            return
        proxies = self.settings.trusted_proxies
        if proxies and ws.remote_address and trusted(str(ws.remote_address[0]), proxies):
            forwarded = ws.request.headers.get("X-Forwarded-For") if ws.request else None
            if not admit(ws, client_address(str(ws.remote_address[0]), forwarded, proxies), self.sockets):
                await _too_many(ws, self.sockets.cap)
                return
        await Connection(ws, self.context).run()  # its socket leaves the count when it closes (sockets.py)

    async def start(self) -> None:
        settings = self.settings
        self._server = await ws_serve(
            self._handle,
            settings.host,
            settings.port,
            process_request=http_handler(self.context),
            process_response=secure_response,
            max_size=settings.max_frame,
            ping_interval=settings.ping_interval,
            ping_timeout=settings.ping_timeout,
            close_timeout=settings.close_timeout,
            compression=None,
            create_connection=capped_connections(self.sockets, settings.trusted_proxies),
        )

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the server is not started")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        host = self.settings.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return "ws" + self.url.removeprefix("http").rstrip("/") + WS_PATH

    async def shutdown(self) -> None:
        """Stop accepting, finish in-flight appends, close sockets with 1001, then close the backend."""
        ctx = self.context
        ctx.draining = True
        server = self._server
        if server is not None:
            server.server.close()  # stop accepting connections
            if not await ctx.drained(self.settings.drain_timeout):
                log.warning("shutting down with commands still in flight")
            connections = list(ctx.connections)
            for connection in connections:
                connection.going_away()
            closing = [asyncio.ensure_future(c.finished()) for c in connections]
            if closing:
                await asyncio.wait(closing, timeout=self.settings.close_timeout + 1)
            for waiting in closing:
                waiting.cancel()
            server.close(close_connections=True, code=CloseCode.GOING_AWAY, reason="server shutting down")
            await server.wait_closed()
            self._server = None
        await self.backend.close()

    async def __aenter__(self) -> AgonServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.shutdown()


async def _wrong_path(ws: ServerConnection) -> None:
    """A WebSocket opened on another path than ``/ws``: say where to connect, then close (1008)."""
    where = f"the Agon WebSocket is at {WS_PATH}: connect to ws://HOST:PORT{WS_PATH}"
    with contextlib.suppress(ConnectionClosed):
        await ws.send(encode(Error(code=errors.WRONG_PATH, message=where)), text=True)
        await ws.close(CloseCode.POLICY_VIOLATION, f"use {WS_PATH}")


async def _too_many(ws: ServerConnection, cap: int) -> None:
    """A connection from an address that holds ``cap`` open already (behind a trusted proxy): say so, close."""
    why = f"at most {cap} connections from one address at once: close one and try again"
    with contextlib.suppress(ConnectionClosed):
        await ws.send(encode(Error(code=errors.RATE_LIMITED, message=why)), text=True)
        await ws.close(CloseCode.TRY_AGAIN_LATER, "too many connections from this address")
