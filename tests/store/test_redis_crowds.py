"""A process with many contests on Redis: more at once than a client library's default connection pool holds.

redis-py's asyncio pools hold at most 100 connections unless told otherwise, and refuse the 101st at once ("Too many
connections"). A process following a few hundred contests keeps a listening connection for each contest it tails
on one server, and may ask Redis about hundreds of contests at once: a presence heartbeat, a reconnecting crowd's
welcomes. Neither may fail for the count alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from server.ending import ended
from server.store import Record, RedisStore
from server.store.port import UnavailableError, sibling
from tests.conftest import RedisServer
from tests.store.test_contract import WAIT, Stores, rec

CROWD = 400
"""Contests at once: well past redis-py's default pool of 100 connections (in a cluster of 3, on each node)."""

HEARD = 15.0
"""Seconds within which every tail hears the append (a notification, or at worst a few poll intervals)."""


def _contests() -> list[str]:
    """Streams of as many contests: their talk streams (siblings, which no listing of contests shows)."""
    tag = uuid.uuid4().hex[:8]
    return [sibling(f"crowd-{tag}-{i}", "talk") for i in range(CROWD)]


@pytest.mark.parametrize("spec", ["redis", "redis-cluster"], indirect=True)
async def test_a_burst_of_requests_past_the_pool_is_answered_not_refused(stores: Stores) -> None:
    store = stores.open()
    contests = _contests()
    await asyncio.gather(*(store.append(c, [rec(1)], 0) for c in contests))
    heads = await asyncio.gather(*(store.head(c) for c in contests), return_exceptions=True)
    assert [h for h in heads if not isinstance(h, int)] == []
    assert heads == [1] * CROWD


@pytest.mark.parametrize("spec", ["redis", "redis-cluster"], indirect=True)
async def test_a_process_tailing_hundreds_of_contests_hears_each_of_them_on_one_connection_a_node(
    stores: Stores, spec: str
) -> None:
    tailing, appending = stores.open(), stores.open()
    contests = _contests()
    heard = {contest: asyncio.Event() for contest in contests}
    listening_before = await _listening(spec)
    tails = [asyncio.create_task(_follow(tailing.subscribe(c), heard[c])) for c in contests]
    waits: list[asyncio.Task[bool]] = []
    try:
        await asyncio.sleep(1.0)  # every tail listening (and each goes on listening to the end)
        # connections that opened since (by id: one that closed meanwhile, left by an earlier test, is no matter)
        added = {node: len(ids - listening_before.get(node, set())) for node, ids in (await _listening(spec)).items()}
        # one on the server; in a cluster one on each primary (a replica holds none: a slot's owner notifies)
        assert set(added.values()) <= {0, 1} and 1 in added.values(), f"listening connections opened: {added}"
        for contest in contests:
            await appending.append(contest, [rec(1)], 0)
        waits = [asyncio.create_task(event.wait()) for event in heard.values()]
        await asyncio.wait(waits, timeout=HEARD)
        deaf = [c for c, event in heard.items() if not event.is_set()]
        assert deaf == [], f"{len(deaf)} of {CROWD} tails heard nothing within {HEARD:g} s"
    finally:
        for task in [*tails, *waits]:
            task.cancel()
        await asyncio.gather(*tails, *waits, return_exceptions=True)


async def _listening(spec: str) -> dict[str, set[str]]:
    """The ids of the pub/sub connections each server (each node of a cluster) holds."""
    urls = spec.removeprefix("redis-cluster://").split(",") if spec.startswith("redis-cluster://") else [spec]
    listening: dict[str, set[str]] = {}
    for url in urls:
        admin = Redis.from_url(url if "://" in url else f"redis://{url}")
        try:
            clients = await admin.client_list()
        finally:
            await admin.aclose()
        listening[url] = {str(client["id"]) for client in clients if "P" in str(client.get("flags", ""))}
    return listening


async def _follow(tail: AsyncIterator[Record], heard: asyncio.Event, version: int = 1) -> None:
    """Read the tail for as long as the test lasts, telling when the record of ``version`` came."""
    async for record in tail:
        assert record.version == version
        heard.set()


@pytest.mark.parametrize("spec", ["redis", "redis-cluster"], indirect=True)
async def test_tails_that_stop_and_start_again_on_one_connection_hear_what_comes_next(stores: Stores) -> None:
    """Tails come and go on the shared connection (a viewer leaves a table, another sits down): a channel left
    and joined again at once is still heard, and so is every other."""
    tailing, appending = stores.open(), stores.open()
    contests = _contests()[:40]
    for version in (1, 2, 3):
        heard = {contest: asyncio.Event() for contest in contests}
        tails = [
            asyncio.create_task(_follow(tailing.subscribe(c, after=version - 1), heard[c], version)) for c in contests
        ]
        try:
            await asyncio.sleep(0.3)
            for contest in contests:
                await appending.append(contest, [rec(version)], version - 1)
            async with asyncio.timeout(HEARD):
                for event in heard.values():
                    await event.wait()
        finally:
            for task in tails:
                task.cancel()
            await asyncio.gather(*tails, return_exceptions=True)


async def test_a_tail_cancelled_once_stops_though_a_library_swallowed_the_cancellation(redis_url: str) -> None:
    """On Python 3.11, ``asyncio.wait_for`` returns what it waited for when a cancellation arrives just as that
    completes, and redis-py waits so for every write to drain: a tail of a crowd cancelled at once sometimes
    never heard of it, and went on polling for good. It stops all the same, by its next turn."""
    store = RedisStore(redis_url, poll=0.1)
    contest = f"swallowed-{uuid.uuid4().hex}"
    await store.append(contest, [rec(1)], 0)
    reads = store.read
    reading = asyncio.Event()

    async def read(contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        records = await reads(contest, after, limit)
        reading.set()
        # a write draining, done as the cancellation came: wait_for returns, and the cancellation is lost
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.2)
        return records

    store.read = read  # type: ignore[method-assign]
    seen: list[int] = []

    async def follow() -> None:
        async for record in store.subscribe(contest):
            seen.append(record.version)

    tail = asyncio.create_task(follow())
    try:
        await asyncio.wait_for(reading.wait(), WAIT)
        tail.cancel()  # once, as a caller stops a task
        done, _ = await asyncio.wait({tail}, timeout=5)
        assert done == {tail} and tail.cancelled(), "the tail went on after it was cancelled"
    finally:
        await ended(tail)  # the test's own clean-up, whatever became of the tail
        await store.close()


async def test_a_queue_of_commands_to_a_redis_that_stops_answering_is_refused_within_two_timeouts(
    private_redis: RedisServer,
) -> None:
    """Commands past the ones in flight wait their turn, but not for ever: with Redis frozen, each of 40 reads
    waits at most one timeout for a place and one for its answer — not one timeout for every few before it."""
    timeout, places, reads = 0.5, 4, 40
    store = RedisStore(private_redis.url, timeout=timeout, commands=places)
    assert private_redis.process is not None
    pid = private_redis.process.pid
    try:
        assert await store.head("frozen") == 0  # connected
        os.kill(pid, signal.SIGSTOP)  # the server keeps its connections but answers nothing
        try:
            started = time.monotonic()
            outcomes = await asyncio.gather(*(store.head("frozen") for _ in range(reads)), return_exceptions=True)
            waited = time.monotonic() - started
        finally:
            os.kill(pid, signal.SIGCONT)
        assert all(isinstance(o, UnavailableError) for o in outcomes), outcomes
        # waiting in turn, the last would have waited reads / places = 10 timeouts (5 s)
        assert waited < 4 * timeout, f"the last of {reads} refused after {waited:.1f} s"
        assert await store.head("frozen") == 0  # answering again, the store carries on
    finally:
        await store.close()
