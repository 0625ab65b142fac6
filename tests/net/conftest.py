"""Servers in this process, over real loopback sockets."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from server.net.app import AgonServer
from server.net.settings import Settings
from server.serving import agon_server
from server.store import EventStore, MemoryStore

Start = Callable[..., Awaitable[AgonServer]]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    """Start servers in this process (``start(store=..., **settings)``); all are shut down after the test."""
    started: list[AgonServer] = []

    async def starting(store: EventStore | None = None, **changes: Any) -> AgonServer:
        settings = dataclasses.replace(Settings(port=0, data_dir=tmp_path, secret=b"unit-test-secret"), **changes)
        server = agon_server(settings, store or MemoryStore(), close_store=False)
        await server.start()
        started.append(server)
        return server

    yield starting
    for server in started:
        await server.shutdown()
