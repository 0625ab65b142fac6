"""The feeds of one process, one per contest with local followers: started once on the first follower (callers
arriving meanwhile wait for the same start), lingering a while once idle, and stopped only if still idle then."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar


class Feed(Protocol):
    """What the registry needs of a feed: its contest, whether anyone still follows it, and a way to stop."""

    @property
    def contest(self) -> str: ...

    @property
    def idle(self) -> bool: ...

    async def stop(self) -> None: ...


F = TypeVar("F", bound=Feed)

Idle = Callable[[Any], None]
"""Told a feed that nobody follows any more (the registry lets it linger, then stops it if still idle)."""


class Registry(Generic[F]):
    """Contest → its running feed. ``start(contest, on_idle)`` makes and starts one (it may refuse: the refusal
    reaches every caller waiting for that start); a feed calls ``on_idle(feed)`` when its last follower leaves.
    ``counted(n)`` is told the number of running feeds whenever it changes."""

    def __init__(
        self,
        start: Callable[[str, Idle], Awaitable[F]],
        linger: float,
        counted: Callable[[int], None] = lambda running: None,
    ) -> None:
        self._make = start
        self._linger = linger
        self._counted = counted
        self._feeds: dict[str, F] = {}
        self._starting: dict[str, asyncio.Task[F]] = {}
        self._lingering: dict[str, asyncio.TimerHandle] = {}
        self._background: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._feeds)

    def get(self, contest: str) -> F | None:
        return self._feeds.get(contest)

    async def feed(self, contest: str) -> F:
        """The contest's feed, started if needed (a following caller keeps it from stopping)."""
        linger = self._lingering.pop(contest, None)
        if linger is not None:
            linger.cancel()
        feed = self._feeds.get(contest)
        if feed is not None:
            return feed
        starting = self._starting.get(contest)
        if starting is None:
            starting = asyncio.get_running_loop().create_task(self._start(contest))
            self._starting[contest] = starting
        return await asyncio.shield(starting)

    async def _start(self, contest: str) -> F:
        try:
            feed = await self._make(contest, self.idle)
            self._feeds[contest] = feed
            self._counted(len(self._feeds))
            self.idle(feed)  # stopped later unless someone follows it by then
            return feed
        finally:
            self._starting.pop(contest, None)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (cancelled on close)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def idle(self, feed: F) -> None:
        """``feed`` has no follower left: stop it after the linger, unless one comes back (or it is not ours)."""
        if feed.contest in self._lingering or self._feeds.get(feed.contest) is not feed:
            return
        self._lingering[feed.contest] = asyncio.get_running_loop().call_later(
            self._linger, self._stop_later, feed.contest
        )

    def _stop_later(self, contest: str) -> None:
        self.spawn(self._stop_if_idle(contest))

    async def _stop_if_idle(self, contest: str) -> None:
        self._lingering.pop(contest, None)
        feed = self._feeds.get(contest)
        if feed is not None and feed.idle:
            del self._feeds[contest]
            self._counted(len(self._feeds))
            await feed.stop()

    async def close(self) -> None:
        for handle in self._lingering.values():
            handle.cancel()
        self._lingering.clear()
        for task in list(self._background):
            task.cancel()
        feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            await feed.stop()
        self._counted(0)
