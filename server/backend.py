"""What one server process keeps below its sockets, over one store: the contest service, each contest's feed, the
table talk's feeds, the presence roster and who opened which contests.

``server.net`` is handed a backend and reaches contests only through it, never a store; ``server.serving`` opens
the store and builds both.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from protocol.events import Envelope
from server.engine.contest import Contest
from server.feed.bus import Bus
from server.feed.fanout import FeedMetrics, FeedSettings
from server.feed.hub import Hub
from server.feed.measures import Counted
from server.feed.presence import Roster
from server.feed.relay import RelayMetrics, Relays
from server.feed.talk import TalkHub
from server.owners import Owners
from server.service import ContestService
from server.store.port import EventStore
from server.store.readiness import ReadinessCache, Shard, all_ready

log = logging.getLogger(__name__)


class BackendMetrics(FeedMetrics, RelayMetrics, Protocol):
    """The metrics kept below the sockets (``server.net.metrics.ServerMetrics`` has them all)."""

    @property
    def lost_events(self) -> Counted: ...

    @property
    def store_errors(self) -> Counted: ...


class Backend:
    def __init__(
        self,
        store: EventStore,
        settings: FeedSettings,
        metrics: BackendMetrics,
        *,
        close_store: bool = True,
        bus: Bus | None = None,
    ) -> None:
        """``bus``: shared with the other processes on the store, so each contest is folded by one of them."""
        self._store = store
        self._close_store = close_store
        self._metrics = metrics
        self.service = ContestService(store)
        self.hub = Hub(self.service, store, metrics, settings, None if bus is None else Relays(bus, metrics))
        self.talk = TalkHub(store, self.service, settings.feed_linger)
        self.presence = Roster(store)
        self.owners = Owners(store)
        self._readiness: ReadinessCache | None = None
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

    async def ready(self, timeout: float) -> tuple[bool, list[Shard]]:
        """Whether every shard of the store can be read from and appended to, and each shard's answer, asked of the
        store at most once a second (``server.store.readiness``): a load balancer polling often costs the store
        nothing more."""
        if self._readiness is None:
            store = self._store
            self._readiness = ReadinessCache(lambda: store.ready(timeout), on_probe=self._probed)
        shards = await self._readiness.get()
        return all_ready(shards), shards

    def _probed(self, before: list[Shard], now: list[Shard]) -> None:
        """A readiness probe's answer: each failed shard counted, and a log line when readiness changes."""
        for shard in now:
            if not shard.ready:
                self._metrics.store_errors.inc(shard.name)
        if all_ready(now) != all_ready(before) and (before or not all_ready(now)):
            failed = "; ".join(f"{shard.name}: {shard.problem}" for shard in now if not shard.ready)
            if failed:
                log.warning("not ready: the store cannot be read from and appended to (%s)", failed)
            else:
                log.warning("ready again: every shard of the store can be read from and appended to")

    def shard(self, contest: str) -> str:
        """The name of the store's shard holding ``contest`` (as ``ready()`` names it)."""
        return self._store.shard(contest)

    async def close(self) -> None:
        """Stop every feed, let the service's background work finish, then release the store (unless it was lent)."""
        await self.presence.close()
        await self.talk.close()
        await self.hub.close()
        await self.service.drain()
        if self._close_store:
            await self._store.close()
