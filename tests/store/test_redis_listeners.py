"""Which appends Redis publishes: only those some other store listens to.

A process hands its own appends to its own feed, so a notification of them that only that process listens to is
read back for nothing. Each test listens to the contest's channel itself, unlisted, and ends with a marker of its
own on the channel: Redis delivers one channel's messages in order, so whatever the appends published arrives
before the marker, and what arrives before it is everything they published.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from server.store import Record, RedisStore
from tests.store.test_contract import WAIT, run, take

MARKER = b"marker"


@pytest.fixture
def contest() -> str:
    return f"listened-{uuid.uuid4().hex}"


@pytest.fixture
async def admin(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def overheard(admin: Redis, contest: str) -> AsyncIterator[PubSub]:
    """The contest's channel, listened to without being listed."""
    pubsub = admin.pubsub()
    await pubsub.ssubscribe(f"agon:{{{contest}}}:notify")
    try:
        yield pubsub
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]


async def published(admin: Redis, overheard: PubSub, contest: str) -> list[bytes]:
    """What the channel carried since the last call (up to now)."""
    await admin.spublish(f"agon:{{{contest}}}:notify", MARKER)
    seen: list[bytes] = []
    async with asyncio.timeout(WAIT):
        while True:
            message = await overheard.get_message(timeout=WAIT)
            if message is None or message["type"] != "smessage":
                continue
            if message["data"] == MARKER:
                return seen
            seen.append(message["data"])


async def listed(admin: Redis, contest: str, count: int) -> None:
    async with asyncio.timeout(WAIT):
        while await admin.zcard(f"agon:{{{contest}}}:listeners") != count:
            await asyncio.sleep(0.01)


async def follow(store: RedisStore, contest: str, held: list[int], seen: list[Record]) -> None:
    """A feed's tail: it holds its own store's appends already (``held``)."""
    async for record in store.subscribe(contest, known=lambda: held[0]):
        seen.append(record)


async def test_appends_only_their_own_store_listens_to_are_not_published(
    redis_url: str, admin: Redis, overheard: PubSub, contest: str
) -> None:
    store = RedisStore(redis_url, poll=3600)
    held, seen = [0], list[Record]()
    tail = asyncio.create_task(follow(store, contest, held, seen))
    try:
        await published(admin, overheard, contest)  # the subscription is confirmed
        await listed(admin, contest, 1)
        records = run(1, 3)
        for record in records:
            await store.append(contest, [record], record.version - 1)
            held[0] = record.version
        assert await published(admin, overheard, contest) == []
        assert seen == []  # nothing read back either
    finally:
        await store.close()
        await tail


async def test_appends_another_store_listens_to_are_published_and_reach_it(
    redis_url: str, admin: Redis, overheard: PubSub, contest: str
) -> None:
    # Neither store polls: only a notification can bring the other process's appends to a feed.
    writing, reading = RedisStore(redis_url, poll=3600), RedisStore(redis_url, poll=3600)
    held_w, held_r, seen_r = [0], [0], list[Record]()
    tails = [
        asyncio.create_task(follow(writing, contest, held_w, [])),
        asyncio.create_task(follow(reading, contest, held_r, seen_r)),
    ]
    try:
        await published(admin, overheard, contest)
        await listed(admin, contest, 2)
        records = run(1, 2)
        for record in records:
            await writing.append(contest, [record], record.version - 1)
            held_w[0] = record.version
        assert await published(admin, overheard, contest) == [b"1", b"2"]
        async with asyncio.timeout(WAIT):
            while len(seen_r) < 2:
                await asyncio.sleep(0.01)
        assert seen_r == records
    finally:
        for store in (writing, reading):
            await store.close()
        await asyncio.gather(*tails)


async def test_a_reader_without_other_news_of_its_stores_appends_is_notified_of_them(
    redis_url: str, admin: Redis, overheard: PubSub, contest: str
) -> None:
    store = RedisStore(redis_url, poll=3600)
    try:
        reader = asyncio.create_task(take(store.subscribe(contest), 2))
        await listed(admin, contest, 1)
        records = run(1, 2)
        await store.append(contest, records[:1], 0)
        await store.append(contest, records[1:], 1)
        assert await reader == records
        assert await published(admin, overheard, contest) == [b"1", b"2"]
    finally:
        await store.close()


async def test_a_listing_past_its_time_is_not_published_to_and_is_dropped(
    redis_url: str, admin: Redis, overheard: PubSub, contest: str
) -> None:
    # A store that stopped without unlisting (its process was killed) left a listing that expired long ago.
    key = f"agon:{{{contest}}}:listeners"
    await admin.zadd(key, {"killed-store": 1})
    store = RedisStore(redis_url, poll=3600)
    try:
        await store.append(contest, run(1, 1), 0)
        assert await published(admin, overheard, contest) == []
        held, seen = [1], list[Record]()
        tail = asyncio.create_task(follow(store, contest, held, seen))
        async with asyncio.timeout(WAIT):  # the store's own listing drops the expired one
            while (members := await admin.zrange(key, 0, -1)) in ([], [b"killed-store"]):
                await asyncio.sleep(0.01)
        assert len(members) == 1 and members != [b"killed-store"]
    finally:
        await store.close()
    await tail


async def test_closing_a_store_unlists_its_readers(redis_url: str, admin: Redis, contest: str) -> None:
    store = RedisStore(redis_url, poll=3600)
    tails = [
        asyncio.create_task(follow(store, contest, [0], [])),
        asyncio.create_task(take(store.subscribe(contest), 1)),
    ]
    await listed(admin, contest, 2)  # the store's feed and its other reader, each listed
    await store.close()
    await listed(admin, contest, 0)
    assert await asyncio.gather(*tails) == [None, []]  # both ended with the store, having read nothing
