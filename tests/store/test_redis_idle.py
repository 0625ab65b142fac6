"""An idle table costs Redis and the process next to nothing: a tail on Redis reads its stream when an append is
notified, not every second (a process following 300 idle tables, each with its talk, read 600 times a second for
nothing and spent a quarter of a core on it)."""

from __future__ import annotations

import asyncio
import uuid

from redis.asyncio import Redis

from server.store import Record, RedisStore
from server.store.redis import CONFIRM, POLL
from tests.store.test_contract import WAIT, rec, take

IDLE = 2.5
"""Seconds a tail is left idle: two and a half of the one-second poll it had."""


class CountingRedis(RedisStore):
    """Counts the reads of the stream its tails make."""

    reads = 0

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        self.reads += 1
        return await super().read(contest, after, limit)


async def test_an_idle_tail_reads_its_stream_when_told_not_every_second(redis_url: str) -> None:
    assert POLL >= 4 * IDLE > CONFIRM
    contest = f"idle-{uuid.uuid4().hex}"
    tailing, appending = CountingRedis(redis_url), RedisStore(redis_url)
    try:
        await appending.append(contest, [rec(1)], 0)
        reader = asyncio.create_task(take(tailing.subscribe(contest), 2))
        async with asyncio.timeout(WAIT):
            while tailing.reads == 0:
                await asyncio.sleep(0.01)
        await asyncio.sleep(IDLE)
        assert tailing.reads == 1  # the first read only: nothing was appended meanwhile
        appended = rec(2)
        await appending.append(contest, [appended], 1)
        async with asyncio.timeout(CONFIRM):  # told at once, well within any poll
            records = await reader
        assert [r.version for r in records] == [1, 2] and records[1] == appended
        assert tailing.reads == 2
    finally:
        await tailing.close()
        await appending.close()


async def test_an_idle_tails_polls_renew_its_listing_and_read_nothing(redis_url: str) -> None:
    """Each poll renews the tail's listing and learns the stream's head in that same round trip: with nothing
    appended, the stream is read once, at the start, however many polls there were."""
    contest = f"idle-{uuid.uuid4().hex}"
    tailing, appending, admin = CountingRedis(redis_url, poll=0.1), RedisStore(redis_url), Redis.from_url(redis_url)
    listeners = f"agon:{{{contest}}}:listeners"
    try:
        await appending.append(contest, [rec(1)], 0)
        reader = asyncio.create_task(take(tailing.subscribe(contest), 2))
        async with asyncio.timeout(WAIT):
            while not await admin.zcard(listeners):
                await asyncio.sleep(0.01)
        expiries = set()
        for _ in range(10):  # a second: about ten polls
            expiries |= {score for _, score in await admin.zrange(listeners, 0, -1, withscores=True)}
            await asyncio.sleep(0.1)
        assert len(expiries) >= 5  # renewed at the polls
        assert tailing.reads == 1
        await appending.append(contest, [rec(2)], 1)
        assert [r.version for r in await reader] == [1, 2]
    finally:
        await tailing.close()
        await appending.close()
        await admin.aclose()
