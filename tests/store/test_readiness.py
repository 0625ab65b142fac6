"""The store side of ``/readyz``: probes that change no contest, one probe a second however often it is asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

from redis.crc import key_slot

from server.store.memory import MemoryStore
from server.store.readiness import ReadinessCache, Shard, describe_slots, probe_key, tag_for_slot
from server.store.sqlite import SqliteStore


async def test_many_callers_at_once_and_within_a_second_cost_one_probe() -> None:
    probes = 0

    async def check() -> list[Shard]:
        nonlocal probes
        probes += 1
        await asyncio.sleep(0.05)
        return [Shard("a")]

    cache = ReadinessCache(check, ttl=0.3)
    answers = await asyncio.gather(*(cache.get() for _ in range(20)))
    assert probes == 1 and all(answer == [Shard("a")] for answer in answers)
    await cache.get()
    assert probes == 1
    await asyncio.sleep(0.35)
    await cache.get()
    assert probes == 2


async def test_a_probe_that_raises_is_an_answer_naming_the_store() -> None:
    async def check() -> list[Shard]:
        raise OSError("gone")

    (shard,) = await ReadinessCache(check).get()
    assert not shard.ready and "gone" in shard.problem


async def test_sqlite_is_ready_and_the_probe_writes_nothing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "agon.sqlite3")
    try:
        assert await store.ready() == [Shard("sqlite")]
        assert await store.contests() == []
    finally:
        await store.close()
    assert await store.ready() != [Shard("sqlite")]  # closed: not ready


async def test_memory_is_ready_until_closed() -> None:
    store = MemoryStore()
    assert await store.ready() == [Shard("memory")]
    await store.close()
    assert not (await store.ready())[0].ready


def test_probe_keys_land_in_the_slot_asked_for() -> None:
    for slot in (0, 5460, 5461, 16383):
        assert key_slot(probe_key(tag_for_slot(slot), "writer").encode()) == slot
    assert describe_slots([0, 1, 2, 7, 9, 10]) == "0-2, 7, 9-10"
