"""A loopback WebSocket relay in front of a real server that records the request target of every connection
(``/ws?contest=...``) and passes the frames both ways unchanged, so a client plays through it as it would
through a proxy."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed


async def _pump(source: ServerConnection | ClientConnection, target: ServerConnection | ClientConnection) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for frame in source:
            await target.send(frame)
    await target.close()


class Relay:
    """``relay.ws_url`` / ``relay.http_url`` lead to ``upstream`` (``ws://HOST:PORT``); ``paths`` lists what each
    connection asked for, in order."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.paths: list[str] = []
        self.port = 0

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, client: ServerConnection) -> None:
        assert client.request is not None
        self.paths.append(client.request.path)
        async with connect(f"{self.upstream}{client.request.path}", max_size=2**24, compression=None) as server:
            await asyncio.gather(_pump(client, server), _pump(server, client))


@contextlib.asynccontextmanager
async def relay(upstream: str) -> AsyncIterator[Relay]:
    """A relay to ``upstream`` (``ws://127.0.0.1:PORT``) on a free loopback port, closed at the end."""
    recording = Relay(upstream)
    async with serve(recording._handle, "127.0.0.1", 0, max_size=2**24, compression=None) as server:
        recording.port = next(iter(server.sockets)).getsockname()[1]
        yield recording
