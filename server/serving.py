"""`agon serve`: open the store, build the process's backend over it and its WebSocket server on top, serve until
told to stop, then shut down gracefully (``server.net.app``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
from urllib.parse import urlsplit

from protocol.codec import decode_untrusted
from protocol.messages import ClientMessage
from server import logs
from server.backend import Backend
from server.fd_limit import OpenFiles, raise_open_files
from server.fd_limit import describe as describe_files
from server.net import accept_limit
from server.net.app import AgonServer
from server.net.auth import previous_secrets, server_secret
from server.net.metrics import ServerMetrics
from server.net.settings import DEFAULT_HOST, DEFAULT_PORT, Settings
from server.store import DEFAULT_SPEC, open_store
from server.store.port import EventStore, StoreError
from server.store.redis import LOOPBACK, RedisStore
from server.store.redis_bus import RedisBus

log = logging.getLogger(__name__)

SWITCH_INTERVAL = 0.0001
"""Seconds a busy thread keeps the interpreter lock while another waits for it (Python's default: 0.005)."""


def agon_server(settings: Settings, store: EventStore, *, close_store: bool = True) -> AgonServer:
    """A server process over ``store`` (not started); its shutdown closes the store unless ``close_store`` is
    False (the store is lent, e.g. shared by several servers in one test)."""
    metrics = ServerMetrics()
    bus = None
    if settings.relay and isinstance(store, RedisStore):
        bus = RedisBus(
            store,
            server_secret(settings.data_dir, settings.secret),
            host=settings.link_host,
            port=settings.link_port,
            advertise=settings.link_advertise,
            previous=previous_secrets(settings.data_dir, settings.previous_secret, settings.previous_until),
        )
    return AgonServer(settings, Backend(store, settings, metrics, close_store=close_store, bus=bus), metrics)


async def serve(
    settings: Settings, store: EventStore, stop: asyncio.Event, spec: str = "", files: OpenFiles | None = None
) -> None:
    """Serve until ``stop`` is set, then shut down gracefully (logging the open-files limit ``files``, if given)."""
    contests = await store.count_contests()  # a count: no start reads the contest list itself
    held = f"{contests} contest" + ("" if contests == 1 else "s")
    print(f"agon: store {_redacted(spec) or describe(store)} ({held})", flush=True)
    if isinstance(store, RedisStore):
        for warning in await store.durability():
            log.warning("%s", warning)
        if settings.relay and settings.link_host in LOOPBACK and not store.on_loopback:
            log.warning(
                "the links to the other processes listen on %s only: a process on another host cannot relay the "
                "contests this one hosts; set AGON_LINK_ADDRESS (e.g. 0.0.0.0:7000, private) on every host",
                settings.link_host,
            )
    async with agon_server(settings, store) as server:
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
        if files is not None:
            log.info("%s", describe_files(files))
        await stop.wait()
        print("agon: shutting down", flush=True)


def describe(store: EventStore) -> str:
    return type(store).__name__


def _redacted(spec: str) -> str:
    parts = urlsplit(spec)
    if parts.scheme.startswith("redis"):
        return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    return spec


async def _main(settings: Settings, spec: str, files: OpenFiles | None = None) -> int:
    store = open_store(spec)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    accept_limit.install(loop)
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    try:
        await serve(settings, store, stop, spec, files)
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
        files = raise_open_files()
        settings = Settings.from_env(host, port, spec)
        with asyncio.Runner(loop_factory=loop_factory(os.environ.get("AGON_LOOP", "asyncio"))) as runner:
            return runner.run(_main(settings, spec, files))
    except (OSError, ValueError) as error:
        print(f"agon serve: {error}", file=sys.stderr)
        return 1
