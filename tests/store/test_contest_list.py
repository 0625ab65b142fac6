"""The contest list, read a bounded page at a time on every backend (memory, sqlite, a real Redis, a real Redis
Cluster), counted without reading it, sharded into buckets on Redis, and still listing what stores of earlier
versions kept in their one set; ``agon admin list`` pages through it."""

from __future__ import annotations

import json
import random
import uuid
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import pytest
from redis.asyncio import Redis

from server import admin
from server.service import ContestService
from server.store import EventStore, Record, RedisStore, open_store
from server.store.port import sibling
from server.store.redis_contest_list import BUCKETS, LEGACY, contest_bucket, next_ids
from tests.engine.table import GM, duel

if TYPE_CHECKING:
    from tests.conftest import RedisServer

PAGE = 7


def first(contest: str) -> list[Record]:
    return [Record(1, uuid.uuid4().hex, b"\x00created " + contest.encode())]


@pytest.fixture
async def store(spec: str) -> AsyncIterator[EventStore]:
    opened = open_store(spec)
    try:
        yield opened
    finally:
        await opened.close()


async def page_through(store: EventStore, prefix: str, limit: int) -> list[list[str]]:
    """The pages of ids starting with ``prefix``, read ``limit`` at a time from just before the first of them
    (the shared Redis servers hold other tests' contests too)."""
    pages: list[list[str]] = []
    after = prefix
    while True:
        page = await store.contests_page(after, limit)
        assert page == sorted(page) and len(page) <= limit and all(c > after for c in page)
        pages.append([c for c in page if c.startswith(prefix)])
        if len(page) < limit or not page[-1].startswith(prefix):
            return pages
        after = page[-1]


async def test_paging_lists_every_contest_exactly_once_in_order(store: EventStore) -> None:
    prefix = f"paged-{uuid.uuid4().hex[:8]}"
    before = await store.count_contests()
    made = [f"{prefix}-{i:03d}" for i in range(6 * PAGE + 3)]
    for contest in random.sample(made, len(made)):
        await store.append(contest, first(contest), 0)
        await store.append(sibling(contest, "talk"), first(contest), 0)  # its table talk: never listed
    await store.append(made[0], [Record(2, uuid.uuid4().hex, b"more")], 1)  # a second event lists it once still
    pages = await page_through(store, prefix, PAGE)
    assert [c for page in pages for c in page] == made
    assert all(len(page) == PAGE for page in pages[:6])  # full pages until the last
    assert await store.count_contests() == before + len(made)
    assert await store.contests_page(made[-2], 1) == [made[-1]]
    await store.remove(made[3])
    assert made[3] not in [c for page in await page_through(store, prefix, PAGE) for c in page]
    assert await store.count_contests() == before + len(made) - 1


async def test_every_contest_is_listed_by_the_whole_list_read_a_page_at_a_time(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.store.port.CONTEST_PAGE", PAGE)
    prefix = f"whole-{uuid.uuid4().hex[:8]}"
    made = [f"{prefix}-{i:02d}" for i in range(2 * PAGE + 1)]
    for contest in made:
        await store.append(contest, first(contest), 0)
    listed = await store.contests()
    assert listed == sorted(listed) and len(listed) == len(set(listed)) == await store.count_contests()
    assert [c for c in listed if c.startswith(prefix)] == made


def crowded(count: int, bucket: str) -> list[str]:
    """``count`` contest ids that all land in one bucket."""
    found: list[str] = []
    while len(found) < count:
        candidate = f"crowd-{uuid.uuid4().hex[:10]}"
        if contest_bucket(candidate) == bucket:
            found.append(candidate)
    return sorted(found)


async def test_contests_crowded_into_one_bucket_are_paged_in_order(private_redis: RedisServer) -> None:
    store = RedisStore(private_redis.url)
    try:
        crowd = crowded(20, contest_bucket("duel"))
        spread = [f"spread-{i:02d}" for i in range(20)]
        for contest in crowd + spread:
            await store.append(contest, first(contest), 0)
        assert len({contest_bucket(c) for c in spread}) > 10  # the rest spread over the buckets
        pages = await page_through(store, "", 3)
        assert [c for page in pages for c in page] == sorted(crowd + spread)
        assert await store.count_contests() == 40
    finally:
        await store.close()


async def test_contests_listed_by_earlier_versions_are_still_listed_and_counted(private_redis: RedisServer) -> None:
    store = RedisStore(private_redis.url)
    client = Redis.from_url(private_redis.url)
    try:
        new = [f"new-{i:02d}" for i in range(5)]
        old = [f"old-{i:02d}" for i in range(12)]
        for contest in new + old:
            await store.append(contest, first(contest), 0)
        for contest in old:  # as a store of an earlier version left them: in its one set, in no bucket
            await client.zrem(contest_bucket(contest), contest)
        await client.sadd(LEGACY, *old)
        assert await store.count_contests() == 17
        assert [c for page in await page_through(store, "", 5) for c in page] == new + old
        assert await client.scard(LEGACY) == 0  # moved into their buckets by the listing: counted once
        assert await store.count_contests() == 17
        again = RedisStore(private_redis.url)  # another process lists them the same way after the move
        try:
            assert await again.contests() == new + old
        finally:
            await again.close()
        await client.sadd(LEGACY, "old-late")  # one more listed by a process of an earlier version still running
        await store.append("old-late", first("old-late"), 0)
        await client.zrem(contest_bucket("old-late"), "old-late")
        assert await store.contests_page("old-11") == ["old-late"]
        await store.remove("old-00")
        assert "old-00" not in await store.contests() and await store.count_contests() == 17
    finally:
        await client.aclose()
        await store.close()


async def test_counting_the_contests_reads_no_member_of_the_list(private_redis: RedisServer) -> None:
    """What ``agon serve`` prints at start: a count from each bucket's size, never the ids themselves."""
    store = RedisStore(private_redis.url)
    client = Redis.from_url(private_redis.url)
    try:
        for i in range(30):
            await store.append(f"counted-{i}", first(f"counted-{i}"), 0)
        await client.sadd(LEGACY, "legacy-one")
        await client.config_resetstat()
        assert await store.count_contests() == 31
        called = {name.removeprefix("cmdstat_") for name in await client.info("commandstats")}
        readers = {"smembers", "sscan", "srandmember", "zrange", "zrangebylex", "zscan", "scan", "keys", "sort"}
        assert not called & readers and {"zcard", "scard"} <= called
    finally:
        await client.aclose()
        await store.close()


def test_a_page_is_only_what_no_bucket_can_still_precede() -> None:
    # bucket 0 returned all it was asked for (2): ids after its last one may still be in it
    assert next_ids([["a", "d"], ["b"], ["c", "e"]], 2) == (["a", "b", "c", "d"], False)
    assert next_ids([["a"], [], ["b"]], 2) == (["a", "b"], True)  # none was full: that is all there is
    assert next_ids([[] for _ in range(BUCKETS)], 2) == ([], True)


def test_the_buckets_are_spread_by_a_stable_hash_over_distinct_slots() -> None:
    assert contest_bucket("duel") == f"agon:contests:{{{zlib.crc32(b'duel') % BUCKETS:02d}}}"
    assert len({contest_bucket(f"c{i}") for i in range(2000)}) == BUCKETS


async def test_admin_list_prints_every_contest_a_page_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "data" / "agon.sqlite3"
    store = open_store(f"sqlite:{path}")
    service = ContestService(store)
    made = [f"table-{i}" for i in range(8)]
    for contest in made:
        await service.create(GM, msgspec.structs.replace(duel(), contest=contest, title=f"Table {contest[-1]}"))
    await store.close()
    monkeypatch.setattr(admin, "CONTEST_PAGE", 3)
    asked: list[str] = []
    read = type(store).contests_page

    async def counted(self: EventStore, after: str = "", limit: int = 500) -> list[str]:
        asked.append(after)
        return await read(self, after, limit)

    monkeypatch.setattr(type(store), "contests_page", counted)
    assert await admin.list_contests(f"sqlite:{path}", as_json=True) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(row["contest"], row["title"], row["state"]) for row in rows] == [
        (contest, f"Table {contest[-1]}", "running") for contest in made
    ]
    assert asked == ["", "table-2", "table-5"]
    assert await admin.list_contests(f"sqlite:{path}", as_json=False) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["CONTEST", "RULESET", "STATE", "EVENTS", "BYTES", "TITLE"]
    assert [line.split()[0] for line in table[1:]] == made
