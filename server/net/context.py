"""What every connection of one server process shares."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from server.backend import Backend
from server.feed.hub import Hub
from server.feed.presence import Roster
from server.feed.talk import TalkHub
from server.net.auth import Tokens
from server.net.hello_watch import HelloWatch
from server.net.limits import TokenBucket
from server.net.lobby import Lobby
from server.net.metrics import ServerMetrics
from server.net.settings import Settings
from server.service import ContestService


class OpenConnection(Protocol):
    """What the server needs of an open connection when it shuts down (``server.net.connection.Connection``)."""

    def going_away(self) -> None:
        """Close with 1001 once the frames already queued are sent."""
        ...

    async def finished(self) -> None:
        """Wait until the connection is over."""
        ...


@dataclass
class ServerContext:
    settings: Settings
    backend: Backend  # the contests, below the sockets (server/backend.py)
    lobby: Lobby
    tokens: Tokens
    metrics: ServerMetrics
    draining: bool = False  # shutting down: no new connections, follows or commands
    connections: set[OpenConnection] = field(default_factory=set)  # the open connections
    create_buckets: dict[str, TokenBucket] = field(default_factory=dict)  # per client address
    hellos: HelloWatch = field(init=False)  # the connections yet to say hello
    _inflight: int = 0
    _idle: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._idle.set()
        self.hellos = HelloWatch(self.settings.hello_timeout)

    @property
    def service(self) -> ContestService:
        return self.backend.service

    @property
    def hub(self) -> Hub:
        """Each contest's feed."""
        return self.backend.hub

    @property
    def presence(self) -> Roster:
        """Who is at each contest's table."""
        return self.backend.presence

    @property
    def talk(self) -> TalkHub:
        """The table talk's feeds and log."""
        return self.backend.talk

    @contextlib.contextmanager
    def appending(self) -> Iterator[None]:
        """Marks a command or creation in flight: shutdown waits for it to be stored and answered."""
        self._inflight += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._inflight -= 1
            if self._inflight == 0:
                self._idle.set()

    def may_create(self, address: str) -> bool:
        """Take a creation token of this client address (False: it opened too many contests lately)."""
        settings = self.settings
        bucket = self.create_buckets.get(address)
        if bucket is None:
            if len(self.create_buckets) >= 10_000:  # forget full buckets first: they hold no debt
                for known in [a for a, b in self.create_buckets.items() if b.tokens >= b.burst]:
                    del self.create_buckets[known]
            bucket = self.create_buckets[address] = TokenBucket(
                settings.create_rate_address, settings.create_burst_address
            )
        return bucket.take()

    async def drained(self, timeout: float) -> bool:
        """Wait until nothing is in flight (True) or ``timeout`` seconds (False)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._idle.wait()
        return self._inflight == 0
