"""The EventStore contract, run against every backend: memory, sqlite (a temp file), redis (a real server) and
a real 3-master Redis Cluster."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import socket
import sqlite3
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from redis.asyncio import Redis, RedisCluster

from server.store import (
    CONFLICT_TAIL,
    BadBatchError,
    BehindError,
    ConflictError,
    DuplicateError,
    EventStore,
    MemoryStore,
    Record,
    RedisStore,
    Snapshot,
    SqliteStore,
    UnavailableError,
    open_store,
)
from server.store.port import sibling
from server.store.redis import _key
from tests.test_store_faults import lose_tail

if TYPE_CHECKING:
    from tests.conftest import RedisClusterServers, RedisServer

WAIT = 30.0
"""Upper bound on any wait, so a broken store fails the test instead of hanging it."""


class Stores:
    """Opens stores on one backend; every store opened shares the same data (memory: the same store)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.opened: list[EventStore] = []

    def open(self) -> EventStore:
        if self.spec == "memory:" and self.opened:
            return self.opened[0]
        store = open_store(self.spec)
        self.opened.append(store)
        return store

    async def close(self) -> None:
        for store in self.opened:
            await store.close()


@pytest.fixture
def store(stores: Stores) -> EventStore:
    return stores.open()


@pytest.fixture
def contest() -> str:
    return f"contest-{uuid.uuid4().hex}"


def rec(version: int, event_id: str | None = None) -> Record:
    """A record with a fresh id and data that is not valid UTF-8, to catch any text round trip."""
    data = b"\x00\xff" + version.to_bytes(4, "big") + os.urandom(16)
    return Record(version, event_id or uuid.uuid4().hex, data)


def run(first: int, count: int) -> list[Record]:
    return [rec(version) for version in range(first, first + count)]


async def take(stream: AsyncIterator[Record], count: int) -> list[Record]:
    """The first ``count`` records of ``stream``; closes it afterwards."""
    taken: list[Record] = []
    try:
        async with asyncio.timeout(WAIT):
            async for record in stream:
                taken.append(record)
                if len(taken) == count:
                    break
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    return taken


async def write_one(store: EventStore, contest: str, record_id: str, data: bytes) -> int:
    """Read the head and append one record after it, retrying on conflict: a typical writer."""
    async with asyncio.timeout(WAIT):
        while True:
            head = await store.head(contest)
            await asyncio.sleep(0)  # let other writers move the head in between
            try:
                [version] = await store.append(contest, [Record(head + 1, record_id, data)], head)
                return version
            except ConflictError:
                continue


async def race(writers: Sequence[EventStore], contest: str, count: int) -> dict[str, bytes]:
    """``count`` concurrent writers spread over ``writers``; returns what each one wrote."""
    wanted = {uuid.uuid4().hex: os.urandom(8) for _ in range(count)}
    versions = await asyncio.gather(
        *(
            write_one(writers[index % len(writers)], contest, event_id, data)
            for index, (event_id, data) in enumerate(wanted.items())
        )
    )
    assert sorted(versions) == list(range(1, count + 1))
    return wanted


def assert_gapless(records: Sequence[Record], wanted: dict[str, bytes]) -> None:
    assert [r.version for r in records] == list(range(1, len(wanted) + 1))
    assert {r.event_id: r.data for r in records} == wanted


# --- append and read -------------------------------------------------------------------------------


async def test_append_to_empty_stream_numbers_from_one_and_reads_back_identical(
    store: EventStore, contest: str
) -> None:
    assert await store.head(contest) == 0
    assert await store.read(contest) == []
    batch = run(1, 3)
    assert await store.append(contest, batch, 0) == [1, 2, 3]
    assert await store.read(contest) == batch
    assert await store.head(contest) == 3
    more = run(4, 2)
    assert await store.append(contest, more, 3) == [4, 5]
    assert await store.read(contest) == batch + more


async def test_wrong_expected_version_conflicts_and_writes_nothing(store: EventStore, contest: str) -> None:
    stored = run(1, 2)
    await store.append(contest, stored, 0)
    for expected in (0, 1, 3, 7):
        with pytest.raises(ConflictError) as caught:
            await store.append(contest, run(expected + 1, 2), expected)
        assert caught.value.code == "store/conflict"
    assert await store.read(contest) == stored
    assert await store.head(contest) == 2


async def test_a_writer_behind_learns_what_it_missed_from_the_conflict(store: EventStore, contest: str) -> None:
    """The refusal carries the records after the writer's version (bounded), so it can decide again at once."""
    stored = chained(1, 70)
    await store.append(contest, stored[:5], 0)
    await store.append(contest, stored[5:], 5)
    for behind in (0, 3, 69):
        with pytest.raises(ConflictError) as caught:
            await store.append(
                contest, chained(behind + 1, 1, prev_hash=stored[behind - 1].hash if behind else ""), behind
            )
        assert caught.value.tail == stored[behind : behind + CONFLICT_TAIL]
    with pytest.raises(ConflictError) as caught:  # ahead of the stream: nothing to learn
        await store.append(contest, run(72, 1), 71)
    assert caught.value.tail == []


async def test_batch_that_does_not_continue_the_expected_version_is_refused(store: EventStore, contest: str) -> None:
    await store.append(contest, run(1, 1), 0)
    bad_batches: list[tuple[list[Record], int]] = [
        ([], 1),
        ([rec(1)], 1),
        ([rec(3)], 1),
        ([rec(2), rec(4)], 1),
        ([rec(2), rec(2)], 1),
        ([rec(0)], -1),
    ]
    same_id = uuid.uuid4().hex
    bad_batches.append(([rec(2, same_id), rec(3, same_id)], 1))
    for records, expected in bad_batches:
        with pytest.raises(BadBatchError) as caught:
            await store.append(contest, records, expected)
        assert caught.value.code == "store/bad_batch"
    assert [r.version for r in await store.read(contest)] == [1]


async def test_partly_duplicate_batch_is_refused_whole(store: EventStore, contest: str) -> None:
    stored = run(1, 2)
    await store.append(contest, stored, 0)
    fresh = rec(3)
    with pytest.raises(DuplicateError) as caught:
        await store.append(contest, [fresh, rec(4, stored[1].event_id)], 2)
    assert caught.value.code == "store/duplicate"
    assert await store.read(contest) == stored
    assert await store.append(contest, [fresh], 2) == [3]


async def test_retried_batch_is_acknowledged_not_duplicated(store: EventStore, contest: str) -> None:
    first = run(1, 2)
    assert await store.append(contest, first, 0) == [1, 2]
    assert await store.append(contest, first, 0) == [1, 2]
    later = run(3, 1)
    await store.append(contest, later, 2)
    # The retry's expected version is stale now, yet it is still an acknowledgement, not a conflict.
    assert await store.append(contest, first, 0) == [1, 2]
    assert await store.append(contest, later, 2) == [3]
    assert await store.read(contest) == first + later
    assert await store.head(contest) == 3


def chained(first: int, count: int, prev_hash: str = "") -> list[Record]:
    """Records that link into a hash chain, as the service writes them."""
    records: list[Record] = []
    for version in range(first, first + count):
        record = rec(version)
        records.append(Record(version, record.event_id, record.data, uuid.uuid4().hex, prev_hash))
        prev_hash = records[-1].hash
    return records


async def test_a_repeated_event_id_is_acknowledged_only_with_identical_content(store: EventStore, contest: str) -> None:
    stored = chained(1, 2)
    await store.append(contest, stored, 0)
    assert await store.append(contest, stored, 0) == [1, 2]
    other_data = [Record(r.version, r.event_id, r.data + b"!", r.hash, r.prev_hash) for r in stored]
    first = Record(1, stored[0].event_id, stored[0].data, stored[0].hash + "0", "")
    other_hash = [first, Record(2, stored[1].event_id, stored[1].data, stored[1].hash, first.hash)]
    for impostor in (other_data, other_hash):
        with pytest.raises(ConflictError) as caught:
            await store.append(contest, impostor, 0)
        assert caught.value.code == "store/conflict"
        assert "other content" in caught.value.message
    assert await store.read(contest) == stored


async def test_append_checks_the_stored_heads_hash_not_only_its_version(store: EventStore, contest: str) -> None:
    stored = chained(1, 2)
    await store.append(contest, stored, 0)
    with pytest.raises(ConflictError) as caught:
        await store.append(contest, chained(3, 1, prev_hash="a-head-this-stream-never-had"), 2)
    assert "hash" in caught.value.message
    assert await store.read(contest) == stored
    follows = chained(3, 2, prev_hash=stored[-1].hash)
    assert await store.append(contest, follows, 2) == [3, 4]
    assert await store.read(contest) == stored + follows


async def test_a_batch_whose_records_do_not_chain_is_refused(store: EventStore, contest: str) -> None:
    first, second = chained(1, 2)
    broken = Record(second.version, second.event_id, second.data, second.hash, "not-the-first")
    with pytest.raises(BadBatchError):
        await store.append(contest, [first, broken], 0)
    assert await store.read(contest) == []


async def test_read_after_and_limit(store: EventStore, contest: str) -> None:
    records = run(1, 6)
    await store.append(contest, records, 0)
    assert await store.read(contest, after=2) == records[2:]
    assert await store.read(contest, after=2, limit=3) == records[2:5]
    assert await store.read(contest, limit=2) == records[:2]
    assert await store.read(contest, after=5, limit=10) == records[5:]
    assert await store.read(contest, after=6) == []
    assert await store.read(contest, after=2, limit=0) == []
    assert await store.read(f"{contest}-other") == []


async def test_contests_are_separate_streams(store: EventStore, contest: str) -> None:
    other = f"{contest}-other"
    mine, theirs = run(1, 2), run(1, 3)
    await store.append(contest, mine, 0)
    await store.append(other, theirs, 0)
    assert await store.read(contest) == mine
    assert await store.read(other) == theirs
    assert (await store.head(contest), await store.head(other)) == (2, 3)


async def test_find_gives_the_version_of_an_event_id_in_its_contest_only(store: EventStore, contest: str) -> None:
    other = f"{contest}-other"
    mine, theirs = run(1, 3), run(1, 1)
    await store.append(contest, mine, 0)
    await store.append(other, theirs, 0)
    assert [await store.find(contest, r.event_id) for r in mine] == [1, 2, 3]
    assert await store.find(contest, theirs[0].event_id) is None
    assert await store.find(contest, "never-stored") is None
    assert await store.find(f"{contest}-none", mine[0].event_id) is None


# --- concurrency -----------------------------------------------------------------------------------


async def test_concurrent_writers_leave_one_gapless_order(store: EventStore, contest: str) -> None:
    wanted = await race([store], contest, 20)
    assert_gapless(await store.read(contest), wanted)


@pytest.mark.parametrize("spec", ["sqlite", "redis"], indirect=True)
async def test_two_stores_on_the_same_data_never_fork_a_contest(stores: Stores, contest: str) -> None:
    first, second = stores.open(), stores.open()
    assert first is not second
    wanted = await race([first, second], contest, 20)
    assert_gapless(await first.read(contest), wanted)
    assert await second.read(contest) == await first.read(contest)


# --- subscribe -------------------------------------------------------------------------------------


async def test_subscribers_see_every_version_once_in_order(store: EventStore, contest: str) -> None:
    count = 20
    early = asyncio.create_task(take(store.subscribe(contest), count + 1))
    await asyncio.sleep(0.05)
    writing = asyncio.create_task(race([store], contest, count))
    while await store.head(contest) < count // 2:
        await asyncio.sleep(0.01)
    late = asyncio.create_task(take(store.subscribe(contest), count + 1))
    wanted = await writing
    # One more append after all the racing ones: the record right after version `count` must be it,
    # so a repeated or skipped version would show.
    marker = rec(count + 1)
    await store.append(contest, [marker], count)
    wanted[marker.event_id] = marker.data
    for reader in (early, late):
        assert_gapless(await reader, wanted)


async def test_subscribe_after_k_starts_after_k_and_follows(store: EventStore, contest: str) -> None:
    records = run(1, 5)
    await store.append(contest, records, 0)
    reader = asyncio.create_task(take(store.subscribe(contest, after=2), 4))
    await asyncio.sleep(0.05)
    sixth = rec(6)
    await store.append(contest, [sixth], 5)
    assert await reader == [*records[2:], sixth]


async def test_subscribe_pages_through_a_long_stream(store: EventStore, contest: str) -> None:
    records = run(1, 700)
    for start in range(0, 700, 100):
        await store.append(contest, records[start : start + 100], start)
    assert await take(store.subscribe(contest, after=50), 650) == records[50:]


@pytest.mark.parametrize("spec", ["sqlite", "redis"], indirect=True)
async def test_subscriber_sees_appends_made_through_another_store(stores: Stores, contest: str) -> None:
    reading, writing = stores.open(), stores.open()
    reader = asyncio.create_task(take(reading.subscribe(contest), 5))
    await asyncio.sleep(0.05)
    records = run(1, 5)
    for record in records:
        await writing.append(contest, [record], record.version - 1)
    assert await reader == records


async def test_close_ends_subscriptions(stores: Stores, contest: str) -> None:
    store = stores.open()
    await store.append(contest, run(1, 1), 0)
    seen: list[Record] = []

    async def follow() -> None:
        async for record in store.subscribe(contest):
            seen.append(record)

    follower = asyncio.create_task(follow())
    while not seen:
        await asyncio.sleep(0.01)
    await store.close()
    # At once, on every store: not after the reader's next poll (1 s on Redis), as a cluster's readers did.
    async with asyncio.timeout(0.5):
        await follower
    assert [r.version for r in seen] == [1]
    with pytest.raises(UnavailableError):
        await store.head(contest)


# --- snapshots, secrets, listing -------------------------------------------------------------------


async def test_snapshots_keep_the_newest_and_can_be_deleted(store: EventStore, contest: str) -> None:
    assert await store.load_snapshot(contest) is None
    await store.save_snapshot(contest, Snapshot(3, b"\x00three"))
    assert await store.load_snapshot(contest) == Snapshot(3, b"\x00three")
    await store.save_snapshot(contest, Snapshot(7, b"\xffseven"))
    await store.save_snapshot(contest, Snapshot(5, b"five"))
    assert await store.load_snapshot(contest) == Snapshot(7, b"\xffseven")
    assert await store.load_snapshot(f"{contest}-other") is None
    await store.delete_snapshots(contest)
    assert await store.load_snapshot(contest) is None
    await store.delete_snapshots(contest)


async def test_secrets_round_trip_per_contest_and_name(store: EventStore, contest: str) -> None:
    assert await store.load_secret(contest, "seed") is None
    await store.save_secret(contest, "seed", b"\x00\x01secret")
    assert await store.load_secret(contest, "seed") == b"\x00\x01secret"
    await store.save_secret(contest, "seed", b"replaced")
    assert await store.load_secret(contest, "seed") == b"replaced"
    assert await store.load_secret(contest, "other") is None
    assert await store.load_secret(f"{contest}-other", "seed") is None
    assert await store.read(contest) == []


async def test_contests_lists_those_with_events_sorted(store: EventStore, contest: str) -> None:
    later, earlier, quiet = f"{contest}-b", f"{contest}-a", f"{contest}-quiet"
    await store.append(later, run(1, 1), 0)
    await store.append(earlier, run(1, 2), 0)
    await store.save_secret(quiet, "seed", b"x")
    await store.save_snapshot(quiet, Snapshot(1, b"x"))
    listed = await store.contests()
    assert listed == sorted(listed)
    assert [c for c in listed if c.startswith(contest)] == [earlier, later]


async def test_an_index_lists_its_members_once_sorted(store: EventStore, contest: str) -> None:
    name = f"owner:{contest}"
    assert await store.index_members(name) == []
    for member in ("b", "a", "b"):
        await store.index_add(name, member)
    await store.index_add(f"{name}-other", "c")
    assert await store.index_members(name) == ["a", "b"]


async def test_ping_answers_when_up(store: EventStore) -> None:
    await store.ping()


async def test_a_removed_contest_is_gone_and_the_others_stay(store: EventStore, contest: str) -> None:
    other = f"{contest}-other"
    for name in (contest, other):
        await store.append(name, run(1, 3), 0)
        await store.save_snapshot(name, Snapshot(2, b"state"))
        await store.save_secret(name, "seed", b"s3cret")
    await store.remove(contest)
    assert (await store.read(contest), await store.head(contest)) == ([], 0)
    assert await store.load_snapshot(contest) is None
    assert await store.load_secret(contest, "seed") is None
    assert contest not in await store.contests()
    assert other in await store.contests()
    assert [r.version for r in await store.read(other)] == [1, 2, 3]
    assert await store.load_secret(other, "seed") == b"s3cret"
    # The id may be used again from scratch (an archive imported back).
    assert await store.append(contest, run(1, 1), 0) == [1]


async def test_a_sibling_stream_is_kept_with_its_contest_never_listed_and_removed_with_it(
    store: EventStore, contest: str
) -> None:
    """A contest's table talk (``<contest>~talk``) is a stream of its own: appended, read and tailed like any,
    never among the contests listed, and gone when its contest is removed (another contest's stays)."""
    other = f"{contest}-other"
    for name in (contest, other):
        await store.append(name, run(1, 2), 0)
        await store.append(sibling(name, "talk"), run(1, 3), 0)
        await store.save_secret(name, "talk-seed", b"s3cret")
    talk = sibling(contest, "talk")
    assert [r.version for r in await store.read(talk)] == [1, 2, 3] and await store.head(talk) == 3
    with pytest.raises(ConflictError):
        await store.append(talk, run(3, 1), 2)
    tail = store.subscribe(talk, after=2)
    try:
        async with asyncio.timeout(WAIT):
            assert (await anext(tail)).version == 3
    finally:
        await tail.aclose()  # type: ignore[attr-defined]
    listed = [c for c in await store.contests() if c.startswith(contest)]
    assert listed == [contest, other]
    await store.remove(contest)
    assert await store.read(talk) == [] and await store.load_secret(contest, "talk-seed") is None
    assert [r.version for r in await store.read(sibling(other, "talk"))] == [1, 2, 3]
    assert await store.load_secret(other, "talk-seed") == b"s3cret"


# --- backend specifics -----------------------------------------------------------------------------


async def test_open_store_specs(tmp_path: Path, redis_url: str) -> None:
    kinds = {
        "memory:": MemoryStore,
        f"sqlite:{tmp_path / 'x.sqlite3'}": SqliteStore,
        redis_url: RedisStore,
        "rediss://127.0.0.1:1/0": RedisStore,
    }
    for spec, kind in kinds.items():
        store = open_store(spec)
        assert isinstance(store, kind)
        await store.close()
    with pytest.raises(ValueError, match="unknown store spec"):
        open_store("postgres://nope")


async def test_sqlite_file_is_wal_and_created_with_its_directory(tmp_path: Path, contest: str) -> None:
    path = tmp_path / "nested" / "dir" / "agon.sqlite3"
    store = SqliteStore(path)
    try:
        await store.append(contest, run(1, 1), 0)
        assert path.exists()
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        await store.close()


async def test_sqlite_stores_opening_one_new_file_together(tmp_path: Path) -> None:
    for attempt in range(25):
        stores = [SqliteStore(tmp_path / f"race-{attempt}.sqlite3") for _ in range(4)]
        try:
            assert await asyncio.gather(*(store.head("c") for store in stores)) == [0, 0, 0, 0]
        finally:
            for store in stores:
                await store.close()


class SilentRedisStore(RedisStore):
    """Appends through the real Lua script but never notifies: readers must heal by polling."""

    async def _notify(self, contest: str, head: int) -> None:
        return None

    async def _publishing(self, contest: str) -> list[str]:
        return ["", ""]


async def test_redis_subscriber_finds_unnotified_appends_on_its_timer(redis_url: str, contest: str) -> None:
    reading, silent = RedisStore(redis_url, poll=0.2), SilentRedisStore(redis_url)
    try:
        reader = asyncio.create_task(take(reading.subscribe(contest), 6))
        await asyncio.sleep(0.05)
        records = run(1, 6)
        await silent.append(contest, records[:3], 0)
        await silent.append(contest, records[3:], 3)
        assert await reader == records
    finally:
        await reading.close()
        await silent.close()


async def test_redis_subscriber_reads_the_gap_a_notification_reveals(redis_url: str, contest: str) -> None:
    # The reader's timer never fires in this test: only the notification of version 4 can make it read,
    # and it must then read versions 1..3 too, whose notifications were lost.
    reading = RedisStore(redis_url, poll=3600)
    silent, loud = SilentRedisStore(redis_url), RedisStore(redis_url)
    try:
        reader = asyncio.create_task(take(reading.subscribe(contest), 5))
        await asyncio.sleep(0.05)
        records = run(1, 5)
        await silent.append(contest, records[:3], 0)
        await loud.append(contest, records[3:4], 3)
        await loud.append(contest, records[4:], 4)
        assert await reader == records
    finally:
        for store in (reading, silent, loud):
            await store.close()


async def test_redis_subscriber_catches_up_after_its_connection_is_killed(redis_url: str, contest: str) -> None:
    # No timer here either: after the kill, only the reconnect's catch-up read can deliver 3 and 4.
    reading, writing = RedisStore(redis_url, poll=3600), RedisStore(redis_url)
    admin = Redis.from_url(redis_url)
    try:
        reader = asyncio.create_task(take(reading.subscribe(contest), 4))
        records = run(1, 4)
        await writing.append(contest, records[:2], 0)
        channel = f"agon:{{{contest}}}:notify"
        while [count for _, count in await admin.pubsub_shardnumsub(channel)] != [1]:
            await asyncio.sleep(0.01)
        assert await admin.client_kill_filter(_type="pubsub") >= 1
        await writing.append(contest, records[2:], 2)
        assert await reader == records
    finally:
        await reading.close()
        await writing.close()
        await admin.aclose()


async def test_redis_subscriber_reconnecting_to_a_store_behind_it_is_told(redis_url: str, contest: str) -> None:
    reading, writing = RedisStore(redis_url, poll=3600), RedisStore(redis_url)
    admin = Redis.from_url(redis_url)
    subscription = reading.subscribe(contest)
    try:
        records = run(1, 4)
        await writing.append(contest, records, 0)
        async with asyncio.timeout(WAIT):
            assert [await anext(subscription) for _ in records] == records
        # Redis comes back from a file cut after version 2 (a power loss): what the reader holds is gone.
        await lose_tail(redis_url, writing, contest, 2)
        assert await admin.client_kill_filter(_type="pubsub") >= 1
        with pytest.raises(BehindError, match="at version 2, not 4"):
            async with asyncio.timeout(WAIT):
                await anext(subscription)
    finally:
        await subscription.aclose()  # type: ignore[attr-defined]
        await reading.close()
        await writing.close()
        await admin.aclose()


async def test_cluster_spreads_contests_over_masters_and_notifies_each_from_its_shard(
    redis_cluster: RedisClusterServers,
) -> None:
    # No timer: only a sharded notification from the master owning each contest's slot can wake a reader.
    contests = [f"spread-{uuid.uuid4().hex}" for _ in range(12)]
    reading, writing = RedisStore(redis_cluster.url, poll=3600), RedisStore(redis_cluster.url)
    admin = RedisCluster(host="127.0.0.1", port=redis_cluster.nodes[0].port)
    try:
        for contest in contests:
            # Every key of one contest hashes to one slot, so the append script may touch them together.
            slots = {await admin.cluster_keyslot(f"agon:{{{contest}}}:{suffix}") for suffix in SUFFIXES}
            slots |= {await admin.cluster_keyslot(_key(sibling(contest, "talk"), suffix)) for suffix in SUFFIXES}
            assert len(slots) == 1  # its table talk's keys too
        owners = {admin.get_node_from_key(f"agon:{{{contest}}}:events").port for contest in contests}
        assert len(owners) > 1, "twelve contests all hashed to one master"
        readers = [asyncio.create_task(take(reading.subscribe(contest), 2)) for contest in contests]
        await asyncio.sleep(0.3)
        written = {contest: run(1, 2) for contest in contests}
        for contest, records in written.items():
            await writing.append(contest, records[:1], 0)
            await writing.append(contest, records[1:], 1)
        assert [await reader for reader in readers] == list(written.values())
        assert set(contests) <= set(await writing.contests())
    finally:
        await reading.close()
        await writing.close()
        await admin.aclose()


@dataclasses.dataclass
class FailingOver:
    """A Redis Cluster of three primaries with a replica each, and two stores on it: one reads, one writes."""

    cluster: RedisClusterServers
    reading: RedisStore
    writing: RedisStore
    admin: RedisCluster

    async def owner(self, contest: str) -> Redis:
        """The primary owning the contest's slot, once a replica holds what it acknowledged (replication is
        asynchronous)."""
        await self.admin.initialize()
        node = self.admin.get_node_from_key(f"agon:{{{contest}}}:events")
        primary = Redis(host=str(node.host), port=int(node.port))
        assert await primary.execute_command("WAIT", 1, 10000) >= 1
        return primary

    async def its_replica(self, primary: Redis) -> Redis:
        (line,) = await primary.execute_command("CLUSTER", "REPLICAS", await primary.execute_command("CLUSTER", "MYID"))
        host, port = _text(line).split()[1].split("@")[0].rsplit(":", 1)
        return Redis(host=host, port=int(port))

    def kill(self, primary: Redis) -> None:
        port = primary.connection_pool.connection_kwargs["port"]
        next(node for node in self.cluster.nodes if node.port == port).stop()


@contextlib.asynccontextmanager
async def failing_over(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FailingOver]:
    from tests.conftest import RedisClusterServers

    cluster = RedisClusterServers(tmp_path_factory.mktemp("failover"), masters=3, replicas=1)
    cluster.start()
    admin = RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port)
    setup = FailingOver(cluster, RedisStore(cluster.url, poll=0.5), RedisStore(cluster.url), admin)
    try:
        yield setup
    finally:
        for closing in (setup.reading, setup.writing):
            await closing.close()
        await admin.aclose()
        cluster.stop()


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def test_cluster_failover_keeps_every_replicated_event_and_readers_carry_on(
    tmp_path_factory: pytest.TempPathFactory, contest: str
) -> None:
    async with failing_over(tmp_path_factory) as setup:
        records = run(1, 6)
        reader = asyncio.create_task(take(setup.reading.subscribe(contest), 6))
        await setup.writing.append(contest, records[:3], 0)
        primary = await setup.owner(contest)
        await primary.aclose()
        setup.kill(primary)
        async with asyncio.timeout(WAIT):
            while True:  # refused while the replica takes over; then the same batch lands once
                try:
                    await setup.writing.append(contest, records[3:], 3)
                    break
                except UnavailableError:
                    await asyncio.sleep(0.2)
        assert await reader == records
        assert await setup.writing.read(contest) == records


async def test_cluster_failover_to_a_replica_behind_the_reader_is_told(
    tmp_path_factory: pytest.TempPathFactory, contest: str
) -> None:
    async with failing_over(tmp_path_factory) as setup:
        subscription = setup.reading.subscribe(contest)
        records = run(1, 5)
        await setup.writing.append(contest, records[:3], 0)
        primary = await setup.owner(contest)  # its replica holds versions 1-3
        replica = await setup.its_replica(primary)
        try:
            # The replica loses its link and cannot get it back (a password the primary does not know): what
            # the primary acknowledges from now on never reaches it.
            await replica.config_set("masterauth", "not-the-primary-password")
            assert await primary.client_kill_filter(_type="replica") >= 1
            await setup.writing.append(contest, records[3:], 3)
            async with asyncio.timeout(WAIT):
                assert [await anext(subscription) for _ in records] == records
            # The primary dies; the replica, at version 3, takes over its slots.
            setup.kill(primary)
            with pytest.raises(BehindError, match="at version 3, not 5"):
                async with asyncio.timeout(WAIT):
                    await anext(subscription)
        finally:
            await subscription.aclose()  # type: ignore[attr-defined]
            for client in (primary, replica):
                await client.aclose()


SUFFIXES = ("events", "ids", "snapshot", "secret:seed", "notify")


async def test_redis_classic_pubsub_notifies_too(redis_url: str, contest: str) -> None:
    # Servers before Redis 7 have no sharded pub/sub; the timer is off, so the notification must arrive.
    reading = RedisStore(redis_url, poll=3600, sharded_pubsub=False)
    writing = RedisStore(redis_url, sharded_pubsub=False)
    try:
        reader = asyncio.create_task(take(reading.subscribe(contest), 2))
        await asyncio.sleep(0.05)
        records = run(1, 2)
        await writing.append(contest, records[:1], 0)
        await writing.append(contest, records[1:], 1)
        assert await reader == records
    finally:
        await reading.close()
        await writing.close()


async def test_redis_unavailable_when_down_and_back_when_up(private_redis: RedisServer, contest: str) -> None:
    store = RedisStore(private_redis.url)
    try:
        await store.ping()
        private_redis.stop()
        with pytest.raises(UnavailableError) as caught:
            await store.ping()
        assert caught.value.code == "store/unavailable"
        with pytest.raises(UnavailableError):
            await store.append(contest, run(1, 1), 0)
        private_redis.start()
        await store.ping()
        assert await store.append(contest, run(1, 1), 0) == [1]
    finally:
        await store.close()


async def test_redis_store_on_a_closed_port_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store = RedisStore(f"redis://agon:hunter2@127.0.0.1:{port}/0")
    try:
        with pytest.raises(UnavailableError) as caught:
            await store.ping()
        assert "hunter2" not in caught.value.message
        with pytest.raises(UnavailableError):
            await store.read("anything")
    finally:
        await store.close()


class CountingSqlite(SqliteStore):
    reads = 0

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        self.reads += 1
        return await super().read(contest, after, limit)


async def test_sqlite_watches_idle_contests_with_one_watcher_not_one_poller_each(tmp_path: Path) -> None:
    path = tmp_path / "agon.sqlite3"
    store, writer = CountingSqlite(path, poll=0.05), SqliteStore(path)
    contests = [f"idle-{i}" for i in range(100)]
    for contest in contests:
        await writer.append(contest, [rec(1)], 0)
    seen: dict[str, list[int]] = {contest: [] for contest in contests}

    async def follow(contest: str) -> None:
        async for record in store.subscribe(contest):
            seen[contest].append(record.version)

    followers = [asyncio.create_task(follow(contest)) for contest in contests]
    async with asyncio.timeout(WAIT):
        while not all(seen.values()):
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)  # the watcher's first look at each contest wakes its reader once
    store.reads = 0
    await asyncio.sleep(0.5)  # ten poll intervals, nothing appended
    assert store.reads < 20
    await writer.append(contests[7], [rec(2)], 1)  # another process appends: its follower still sees it
    async with asyncio.timeout(WAIT):
        while seen[contests[7]] != [1, 2]:
            await asyncio.sleep(0.01)
    assert store.reads < 30
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)
    await store.close()
    await writer.close()
