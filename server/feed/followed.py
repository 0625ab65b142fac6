"""A contest's feed as the connections, the presence roster and the table talk use it: a ``ContestFeed`` (the
process folds the contest itself) or a ``ClusterFeed`` (one process of the cluster hosts it; the others relay)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from protocol.common import Actor, Seat
from protocol.events import Command, Envelope
from protocol.messages import TokenRole
from server.engine.contest import Contest
from server.feed.tail import RefoldBudget
from server.service import Result


class Follower(Protocol):
    """A connection as the feed sees it: frames are queued without waiting (a slow one drops itself)."""

    def send(self, frame: bytes) -> None: ...


class FollowedFeed(Protocol):
    on_detach: Callable[[Follower], None] | None

    @property
    def contest(self) -> str: ...

    @property
    def idle(self) -> bool: ...

    @property
    def version(self) -> int: ...

    @property
    def seats(self) -> Sequence[Seat]: ...

    def generation(self, seat: str) -> int: ...

    async def attach(
        self,
        follower: Follower,
        actor: Actor,
        role: TokenRole,
        after: int | None,
        generation: int = 0,
        budget: RefoldBudget | None = None,
    ) -> None: ...

    def detach(self, follower: Follower) -> None: ...

    async def reached(self, version: int, timeout: float) -> bool: ...

    async def forward(self, actor: Actor, id: str, command: Command, generation: int) -> Result | None:
        """Have the process hosting the contest decide a command and answer once its batch is published (raises
        Refused); None: it is decided here."""
        ...

    def offer(self, envelopes: Sequence[Envelope], before: Contest[Any], states: Sequence[Contest[Any]]) -> None: ...

    async def resync(self) -> None: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...
