"""What one server process keeps below its sockets, over one store: the contest service, each contest's feed, the
table talk's feeds, the presence roster and who opened which contests.

``server.net`` is handed a backend and reaches contests only through it, never a store; ``server.serving`` opens
the store and builds both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from protocol.events import Envelope
from server.engine.contest import Contest
from server.feed.fanout import FeedMetrics, FeedSettings, Hub
from server.feed.presence import Roster
from server.feed.talk import TalkHub
from server.owners import Owners
from server.service import ContestService
from server.store.port import EventStore


class Counted(Protocol):
    def inc(self, *labels: str, amount: float = 1.0) -> None: ...


class BackendMetrics(FeedMetrics, Protocol):
    """The metrics kept below the sockets (``server.net.metrics.ServerMetrics`` has them all)."""

    @property
    def lost_events(self) -> Counted: ...


class Backend:
    def __init__(
        self, store: EventStore, settings: FeedSettings, metrics: BackendMetrics, *, close_store: bool = True
    ) -> None:
        self._store = store
        self._close_store = close_store
        self._metrics = metrics
        self.service = ContestService(store)
        self.hub = Hub(self.service, store, metrics, settings)
        self.talk = TalkHub(store, self.service, settings.feed_linger)
        self.presence = Roster(store)
        self.owners = Owners(store)
        self.service.on_lost = self._lost
        self.service.on_appended = self._appended

    def _lost(self, contest: str, missing: int) -> None:
        """The store lost acknowledged events of ``contest``: count them, and resynchronise its viewers."""
        self._metrics.lost_events.inc(amount=missing)
        feed = self.hub.get(contest)
        if feed is not None:
            self.hub.spawn(feed.resync())

    def _appended(
        self, contest: str, envelopes: Sequence[Envelope], before: Contest[Any], states: Sequence[Contest[Any]]
    ) -> None:
        """Publish this process's own appends without reading them back from the store."""
        feed = self.hub.get(contest)
        if feed is not None:
            feed.offer(envelopes, before, states)

    async def ping(self) -> None:
        """Raises unless the store answers."""
        await self._store.ping()

    async def close(self) -> None:
        """Stop every feed, let the service's background work finish, then release the store (unless it was lent)."""
        await self.presence.close()
        await self.talk.close()
        await self.hub.close()
        await self.service.drain()
        if self._close_store:
            await self._store.close()
