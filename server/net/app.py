"""`agon serve`: the WebSocket server, its HTTP endpoints, and a graceful shutdown.

On SIGTERM (or SIGINT) the server stops accepting connections, lets in-flight appends finish and be
answered, then closes every socket with 1001 (going away); clients reconnect — to this process when it is
back, or to another one sharing the store — and resume from the last version they saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection
from websockets.asyncio.server import serve as ws_serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from protocol import errors
from protocol.codec import decode_untrusted, encode
from protocol.events import Envelope
from protocol.messages import ClientMessage, Error
from server import logs
from server.engine.contest import Contest
from server.feed.fanout import Hub
from server.net.auth import Tokens, previous_secrets, server_secret
from server.net.connection import Connection
from server.net.context import ServerContext
from server.net.forwarded import client_address, trusted
from server.net.http import WS_PATH, http_handler, secure_response
from server.net.lobby import Lobby
from server.net.metrics import ServerMetrics
from server.net.presence import Roster
from server.net.settings import DEFAULT_HOST, DEFAULT_PORT, Settings
from server.net.sockets import AddressCount, admit, capped_connections
from server.net.talk import TalkHub
from server.service import ContestService
from server.store import DEFAULT_SPEC, open_store
from server.store.port import EventStore, StoreError
from server.store.redis import RedisStore

log = logging.getLogger(__name__)

SWITCH_INTERVAL = 0.0001
"""Seconds a busy thread keeps the interpreter lock while another waits for it (Python's default: 0.005)."""


class AgonServer:
    """One server process: start it, read its URL, shut it down (or use it as an async context manager)."""

    def __init__(self, settings: Settings, store: EventStore, *, close_store: bool = True) -> None:
        self.settings = settings
        self.store = store
        self._close_store = close_store
        metrics = ServerMetrics()
        service = ContestService(store)
        tokens = Tokens(
            server_secret(settings.data_dir, settings.secret),
            previous=previous_secrets(settings.data_dir, settings.previous_secret, settings.previous_until),
            public_key=settings.jwt_public_key,
        )
        self.context = ServerContext(
            settings=settings,
            store=store,
            service=service,
            hub=Hub(service, store, metrics, settings),
            lobby=Lobby(service, store, tokens, settings),
            tokens=tokens,
            metrics=metrics,
            presence=Roster(store),
            talk=TalkHub(store, service, settings),
        )
        self.sockets = AddressCount(settings.max_connections_address)
        self._server: Server | None = None
        service.on_lost = self._lost
        service.on_appended = self._appended

    def _lost(self, contest: str, missing: int) -> None:
        """The store lost acknowledged events of ``contest``: count them, and resynchronise its viewers."""
        self.context.metrics.lost_events.inc(amount=missing)
        feed = self.context.hub.get(contest)
        if feed is not None:
            self.context.hub.spawn(feed.resync())

    def _appended(self, contest: str, envelopes: Sequence[Envelope], before: Contest[Any], after: Contest[Any]) -> None:
        """Publish this process's own appends without reading them back from the store."""
        feed = self.context.hub.get(contest)
        if feed is not None:
            feed.offer(envelopes, before, after)

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
        """Stop accepting, finish in-flight appends, close sockets with 1001, then release the store."""
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
        await ctx.presence.close()
        await ctx.talk.close()
        await ctx.hub.close()
        await ctx.service.drain()
        if self._close_store:
            await self.store.close()

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


async def serve(settings: Settings, store: EventStore, stop: asyncio.Event, spec: str = "") -> None:
    """Serve until ``stop`` is set, then shut down gracefully."""
    contests = len(await store.contests())
    held = f"{contests} contest" + ("" if contests == 1 else "s")
    print(f"agon: store {_redacted(spec) or describe(store)} ({held})", flush=True)
    if isinstance(store, RedisStore):
        for warning in await store.durability():
            log.warning("%s", warning)
    async with AgonServer(settings, store) as server:
        # msgspec builds a type's decoder on first use: build the clients' messages' now, not on a first frame.
        decode_untrusted(b'{"type":"ping"}', ClientMessage)  # type: ignore[arg-type]
        # What start-up allocated lives as long as the process: keep it out of every later collection.
        gc.collect()
        gc.freeze()
        # The store's writer thread (sqlite) needs the interpreter lock back after each statement it runs
        # (a group of appends is one statement); while the event loop is busy it waits up to the switch
        # interval for it. With Python's default 5 ms a durable append took ~7.5 ms under the table-night load;
        # with 0.1 ms (and one statement per group) its median at 1,000 commands/s is ~0.35 ms.
        sys.setswitchinterval(SWITCH_INTERVAL)
        print(f"agon: serving on {server.url}  (WebSocket {server.ws_url}, store {describe(store)})", flush=True)
        print(f"agon: open {server.url} in a browser and press New contest", flush=True)
        print(f"agon: event loop {type(asyncio.get_running_loop()).__module__.split('.')[0]}", flush=True)
        await stop.wait()
        print("agon: shutting down", flush=True)


def describe(store: EventStore) -> str:
    return type(store).__name__


def _redacted(spec: str) -> str:
    parts = urlsplit(spec)
    if parts.scheme.startswith("redis"):
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    return spec


async def _main(settings: Settings, spec: str) -> int:
    store = open_store(spec)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await serve(settings, store, stop, spec)
    except StoreError as error:
        print(f"agon serve: cannot open the store {_redacted(spec)}: {error.message}", file=sys.stderr)
        await store.close()
        return 1
    except OSError as error:
        print(f"agon serve: cannot serve on {settings.host}:{settings.port}: {error}", file=sys.stderr)
        await store.close()
        return 1
    return 0


def loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop ``AGON_LOOP`` names: ``asyncio`` (the default) or ``uvloop`` (``pip install
    'agon[uvloop]'``; measured no cheaper per command here, see the README's performance section)."""
    choice = choice.strip().lower() or "asyncio"
    if choice == "asyncio":
        return None
    if choice != "uvloop":
        raise ValueError(f"AGON_LOOP: {choice!r} is neither asyncio nor uvloop")
    try:
        import uvloop
    except ImportError:
        raise ValueError("AGON_LOOP: uvloop is not installed (pip install 'agon[uvloop]')") from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, store: str | None = None) -> int:
    """The ``agon serve`` command: the embedded sqlite store unless a Redis URL is named. The command line has
    checked that a sqlite store exists, or that ``--create`` asks for one (``server.cli``)."""
    spec = store or DEFAULT_SPEC
    try:
        logs.configure(os.environ)
        settings = Settings.from_env(host, port, spec)
        with asyncio.Runner(loop_factory=loop_factory(os.environ.get("AGON_LOOP", "asyncio"))) as runner:
            return runner.run(_main(settings, spec))
    except (OSError, ValueError) as error:
        print(f"agon serve: {error}", file=sys.stderr)
        return 1
