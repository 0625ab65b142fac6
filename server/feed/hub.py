"""The feeds of one process: a contest's feed is started on its first local follower and stopped a while after its
last. Alone on its store (or told not to relay), a process folds every contest it has viewers of (``ContestFeed``);
sharing its store over a bus, it hosts some contests and relays the others' (``server.feed.relay``)."""

from __future__ import annotations

from collections.abc import Callable

from server.feed.fanout import ContestFeed, FeedMetrics, FeedSettings
from server.feed.followed import FollowedFeed
from server.feed.registry import Registry
from server.feed.relay import ClusterFeed, Relays
from server.service import ContestService
from server.store.port import EventStore


class Hub(Registry[FollowedFeed]):
    def __init__(
        self,
        service: ContestService,
        store: EventStore,
        metrics: FeedMetrics,
        settings: FeedSettings,
        relays: Relays | None = None,
    ) -> None:
        self.relays = relays

        async def start(contest: str, on_idle: Callable[[FollowedFeed], None]) -> FollowedFeed:
            def local(idle: Callable[[ContestFeed], None]) -> ContestFeed:
                return ContestFeed(contest, service, store, metrics, settings, idle)

            feed: FollowedFeed
            if relays is None:
                feed = local(on_idle)
            else:
                await relays.start()
                feed = ClusterFeed(contest, relays.bus, relays, store, service, local, on_idle, settings.ack_wait)
            await feed.start()
            return feed

        super().__init__(start, settings.feed_linger, metrics.followed.set)

    async def close(self) -> None:
        await super().close()
        if self.relays is not None:
            await self.relays.close()
