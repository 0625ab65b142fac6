"""What the processes sharing a store tell each other, as the feeds see it (``server.store.redis_bus``: leases and
liveness in Redis, messages over ``server.peer_links``): which process hosts a contest, whether a process is alive,
and messages from one process to another.

A contest is *hosted* by exactly one live process at a time: the one holding its host lease. That process folds it
and builds its views; every other process with viewers of it relays the host's frames (``server.feed.relay``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Bus(Protocol):
    @property
    def me(self) -> str:
        """This process's name on the bus (unique per start)."""
        ...

    @property
    def lapse(self) -> float:
        """Seconds after which a process that stopped saying it is alive is dead for the others."""
        ...

    async def claim(self, contest: str) -> str:
        """Take the contest's host lease if it is free or its holder is dead; return the holder afterwards (this
        process's name when it holds it)."""
        ...

    async def release(self, contest: str) -> None:
        """Give the lease up, if this process holds it."""
        ...

    async def alive(self, process: str) -> bool:
        """Whether ``process`` has renewed its liveness lately."""
        ...

    async def post(self, process: str, data: bytes) -> int:
        """Send ``data`` to ``process``: 1 when it went out on an open link, 0 when the process cannot be reached."""
        ...

    async def listen(self, on_message: Callable[[bytes], None], on_reset: Callable[[str], None]) -> None:
        """Deliver the messages sent to this process to ``on_message`` from now on (it returns once this process
        listens and is alive for the others); ``on_reset`` is told a process whose messages may have been lost
        (its connection broke)."""
        ...

    def on_lost(self, told: Callable[[], None]) -> None:
        """``told`` is called when this process finds it was not seen alive for a while (a pause longer than its
        liveness lasts): other processes may have taken its contests over."""
        ...

    async def close(self) -> None: ...
