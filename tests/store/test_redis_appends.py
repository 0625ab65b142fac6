"""A Redis store's appends go back to back on one connection of their own, answers read in order. What a user of
the store sees: every append gets its own answer however many are in flight, a Redis that stops answering makes
appends fail as unavailable within the store's timeout, and a broken connection or forgotten script is repaired
without the caller noticing."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.store import RedisStore, UnavailableError
from tests.conftest import RedisServer
from tests.store.test_contract import rec, run


def contests(count: int) -> list[str]:
    return [f"appends-{uuid.uuid4().hex}" for _ in range(count)]


async def test_many_appends_in_flight_each_get_their_own_answer(redis_url: str) -> None:
    store = RedisStore(redis_url)
    try:
        names = contests(40)
        written = {name: run(1, 3) for name in names}

        async def play(name: str) -> list[list[int]]:
            return [await store.append(name, [r], r.version - 1) for r in written[name]]

        answers = await asyncio.gather(*(play(name) for name in names))
        assert answers == [[[1], [2], [3]]] * len(names)
        # A refused append among them is refused alone: the others' answers stay theirs.
        outcomes = await asyncio.gather(
            *(store.append(name, [rec(4)], 3 if i % 2 else 1) for i, name in enumerate(names)), return_exceptions=True
        )
        assert [isinstance(o, list) for o in outcomes] == [bool(i % 2) for i in range(len(names))]
        for i, name in enumerate(names):
            assert [r.version for r in await store.read(name)] == [1, 2, 3, *([4] if i % 2 else [])]
    finally:
        await store.close()


async def test_a_redis_that_stops_answering_makes_appends_unavailable_then_they_resume(
    private_redis: RedisServer,
) -> None:
    store = RedisStore(private_redis.url, timeout=1.0)
    (name,) = contests(1)
    assert private_redis.process is not None
    pid = private_redis.process.pid
    try:
        await store.append(name, run(1, 1), 0)
        second = [rec(2)]
        os.kill(pid, signal.SIGSTOP)  # the server keeps its connections but answers nothing
        try:
            started = time.monotonic()
            with pytest.raises(UnavailableError) as caught:
                await store.append(name, second, 1)
            assert caught.value.code == "store/unavailable"
            assert time.monotonic() - started < 10  # two tries of about a second each, not forever
        finally:
            os.kill(pid, signal.SIGCONT)
        # The refused append may still land (Redis reads what was sent before it stopped); retried, it is
        # stored once either way.
        assert await store.append(name, second, 1) == [2]
        assert [r.version for r in await store.read(name)] == [1, 2]
        assert await store.append(name, [rec(3)], 2) == [3]
    finally:
        await store.close()


@pytest.fixture
async def store_and_admin(private_redis: RedisServer) -> AsyncIterator[tuple[RedisStore, Redis]]:
    """A store on a Redis of its own: the tests count and kill connections by their last command, which a
    shared Redis has from other tests' stores too."""
    store, admin = RedisStore(private_redis.url), Redis.from_url(private_redis.url)
    yield store, admin
    await store.close()
    await admin.aclose()


async def kill_clients(admin: Redis, *commands: str) -> int:
    """Close the connections whose last command was one of ``commands``, as Redis does; how many."""
    ids = [c["id"] for c in await admin.client_list() if c["cmd"] in commands]
    return sum([await admin.client_kill_filter(_id=i) for i in ids])


async def test_a_killed_connection_and_flushed_scripts_are_repaired_unnoticed(
    store_and_admin: tuple[RedisStore, Redis],
) -> None:
    store, admin = store_and_admin
    (name,) = contests(1)
    records = run(1, 3)
    await store.append(name, records[:1], 0)
    assert await kill_clients(admin, "evalsha") == 1  # one connection carries the appends
    await store.append(name, records[1:2], 1)
    await admin.script_flush()
    await store.append(name, records[2:], 2)
    assert await store.read(name) == records


async def test_reads_on_a_connection_redis_dropped_are_sent_again_unnoticed(
    store_and_admin: tuple[RedisStore, Redis],
) -> None:
    # Redis closes a client's idle connections after its `timeout`, and a restart closes them all: the next
    # read on one is sent again on a fresh connection, not refused as unavailable.
    store, admin = store_and_admin
    (name,) = contests(1)
    records = run(1, 2)
    await store.append(name, records, 0)
    assert await store.read(name) == records
    assert await kill_clients(admin, "xrange", "xrevrange") >= 1
    assert await store.read(name) == records
    assert await store.head(name) == 2
