"""An idle table costs Redis and the process next to nothing: a tail on Redis reads its stream when an append is
notified, not every second (a process following 300 idle tables, each with its talk, read 600 times a second for
nothing and spent a quarter of a core on it); and a store polls all its tails in one round, not each on its own
(each poll cost a process half a millisecond: two thirds of what an idle table still cost it)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from redis.asyncio import Redis

from server.store import Record, RedisStore
from server.store.redis import CONFIRM, POLL, ScriptCall, _listing_keys, _version
from tests.conftest import RedisClusterServers
from tests.store.test_contract import WAIT, SilentRedisStore, rec, take

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
        async with asyncio.timeout(WAIT):  # renewed at the polls, again and again
            while len(expiries) < 5:
                expiries |= {score for _, score in await admin.zrange(listeners, 0, -1, withscores=True)}
                await asyncio.sleep(0.05)
        assert tailing.reads == 1
        await appending.append(contest, [rec(2)], 1)
        assert [r.version for r in await reader] == [1, 2]
    finally:
        await tailing.close()
        await appending.close()
        await admin.aclose()


class CountingPolls(CountingRedis):
    """Counts the calls that renew listings: one tail's (``_list``), and a round's (``_list_many``, with its size)."""

    def __init__(self, url: str, **options: float) -> None:
        super().__init__(url, **options)  # type: ignore[arg-type]
        self.single = 0
        self.rounds: list[int] = []
        self.trips: list[int] = []  # each round's round trips to Redis

    async def _list(self, contest: str, name: str, ms: int) -> int:
        self.single += 1
        return await super()._list(contest, name, ms)

    async def _list_many(self, listed: Sequence[tuple[str, str]]) -> list[int | None]:
        self.rounds.append(len(listed))
        self.trips.append(0)
        return await super()._list_many(listed)

    async def _scripts_on(self, *args: Any) -> None:
        self.trips[-1] += 1
        await super()._scripts_on(*args)


def _url(where: str, request: pytest.FixtureRequest) -> str:
    return str(
        request.getfixturevalue("redis_url") if where == "redis" else request.getfixturevalue("redis_cluster").url
    )


@pytest.mark.parametrize("where", ["redis", "redis-cluster"])
async def test_a_stores_idle_tails_are_polled_together_in_one_round(where: str, request: pytest.FixtureRequest) -> None:
    """In one round trip to a server; in a cluster, one to each node holding some of the contests."""
    tails, polls = 20, 10
    url = _url(where, request)
    tailing, appending = CountingPolls(url, poll=0.1), RedisStore(url)
    contests = [f"round-{uuid.uuid4().hex}" for _ in range(tails)]
    try:
        for contest in contests:
            await appending.append(contest, [rec(1)], 0)
        readers = [asyncio.create_task(take(tailing.subscribe(contest), 2)) for contest in contests]
        async with asyncio.timeout(WAIT):
            while tailing.reads < tails or not tailing.rounds:
                await asyncio.sleep(0.01)
        rounds = len(tailing.rounds)
        async with asyncio.timeout(WAIT):  # rounds keep coming (how fast is the machine's: not asserted)
            while len(tailing.rounds) - rounds < polls:
                await asyncio.sleep(0.01)
        assert tailing.single == tails  # each tail listed itself once, as it started
        assert tailing.rounds[-2] == tails  # every tail in each round (the one before the last: done)
        nodes = {await tailing._node_of(contest) for contest in contests} if where != "redis" else {"the server"}
        assert tailing.trips[-2] == len(nodes)  # one to the server, or to each primary holding some of the contests
        assert tailing.reads == tails  # and none read anything more
        for contest in contests:
            await appending.append(contest, [rec(2)], 1)
        assert [[r.version for r in await reader] for reader in readers] == [[1, 2]] * tails
    finally:
        await tailing.close()
        await appending.close()


@pytest.mark.parametrize("where", ["redis", "redis-cluster"])
async def test_appends_nobody_was_told_of_reach_every_idle_tail_at_the_next_round(
    where: str, request: pytest.FixtureRequest
) -> None:
    """The round is what catches a notification that was lost: on a server as on a cluster, whose contests are on
    several nodes."""
    url = _url(where, request)
    reading, silent = RedisStore(url, poll=0.2), SilentRedisStore(url)
    contests = [f"unheard-{uuid.uuid4().hex}" for _ in range(6)]
    try:
        for contest in contests:
            await silent.append(contest, [rec(1)], 0)
        readers = [asyncio.create_task(take(reading.subscribe(contest), 2)) for contest in contests]
        await asyncio.sleep(0.3)
        for contest in contests:
            await silent.append(contest, [rec(2)], 1)  # never published
        async with asyncio.timeout(WAIT):
            assert [[r.version for r in await reader] for reader in readers] == [[1, 2]] * len(contests)
    finally:
        await reading.close()
        await silent.close()


class Misplacing(RedisStore):
    """Places one contest on a node that does not hold its slot, as a process does until it learns a slot moved."""

    misplaced = ""

    def _slot_node(self, contest: str) -> tuple[str, int]:
        node = super()._slot_node(contest)
        if contest != self.misplaced:
            return node
        assert self._cluster is not None
        return next((str(n.host), int(n.port)) for n in self._cluster.get_primaries() if (n.host, n.port) != node)


async def test_a_round_that_finds_a_slot_moved_renews_that_listing_all_the_same(
    redis_cluster: RedisClusterServers,
) -> None:
    store, silent = Misplacing(redis_cluster.url, poll=3600), SilentRedisStore(redis_cluster.url)
    contests = [f"misplaced-{uuid.uuid4().hex}" for _ in range(4)]
    store.misplaced = contests[0]
    try:
        for contest in contests:
            await silent.append(contest, [rec(1), rec(2)], 0)
        calls: list[ScriptCall] = [(c, _listing_keys(c), ["me", 30_000]) for c in contests]
        replies = await store.scripts(store._list_script, calls)
        assert [_version(reply) for reply in replies] == [2, 2, 2, 2]  # the misplaced one too, asked again
    finally:
        await store.close()
        await silent.close()
