"""Waiting for a stream to reach a version: a contest's feed (an acknowledgement waits for its command to be
published) and a contest's table talk (a ``say`` waits for its line) both need it."""

from __future__ import annotations

import asyncio
import contextlib


class Waiters:
    """Those waiting for a version, woken once the stream reaches it, or all at once when the stream stops."""

    def __init__(self) -> None:
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    async def wait(self, version: int, timeout: float) -> None:
        """Return once ``reached(version)`` (or a later version) is told, or ``timeout`` seconds have passed."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((version, waiter))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await waiter

    def reached(self, version: int) -> None:
        """The stream is at ``version``: wake everyone waiting for it or an earlier one."""
        waiting: list[tuple[int, asyncio.Future[None]]] = []
        for wanted, waiter in self._waiting:
            if wanted <= version:
                if not waiter.done():
                    waiter.set_result(None)
            else:
                waiting.append((wanted, waiter))
        self._waiting = waiting

    def release(self) -> None:
        """The stream stops: wake everyone."""
        for _, waiter in self._waiting:
            if not waiter.done():
                waiter.set_result(None)
        self._waiting.clear()
