"""A Redis Cluster slot migration under a live contest: the slot of a contest's hash tag moves from one
master to another (ASK and TRYAGAIN while its keys move, MOVED afterwards) while a writer appends and a
reader follows. Every acknowledged append is in the stream once and in order, and the reader, which has no
timer to fall back on, keeps being woken by sharded notifications, now from the new owner."""

from __future__ import annotations

import asyncio
import uuid

from redis.crc import key_slot

from server.store import Record, RedisStore, UnavailableError
from tests.conftest import RedisClusterServers
from tests.store.slots import keys_in_slot, masters, migrate_slot, moving_cluster, owner_of
from tests.store.test_contract import WAIT, rec, take

SLOT_KEY = "agon:{%s}:events"
__all__ = ["moving_cluster"]  # the fixture


async def append_acknowledged(store: RedisStore, contest: str, record: Record) -> None:
    """Append one record after the one before, retrying the same batch while the store is unavailable."""
    async with asyncio.timeout(WAIT):
        while True:
            try:
                await store.append(contest, [record], record.version - 1)
                return
            except UnavailableError:
                await asyncio.sleep(0.05)


async def test_a_slot_moved_under_a_writer_and_a_reader_loses_nothing_and_notifications_follow_it(
    moving_cluster: RedisClusterServers,
) -> None:
    contest = f"moving-{uuid.uuid4().hex}"
    ports = [node.port for node in moving_cluster.nodes]
    reading, writing = RedisStore(moving_cluster.url, poll=3600), RedisStore(moving_cluster.url)
    records = [rec(version) for version in range(1, 121)]
    acknowledged: list[Record] = []
    try:
        await append_acknowledged(writing, contest, records[0])
        acknowledged.append(records[0])
        reader = asyncio.create_task(take(reading.subscribe(contest), len(records)))
        source = await owner_of(ports, SLOT_KEY % contest)
        target = next(m for m in await masters(ports) if m != source)

        async def write(upto: int) -> None:
            for record in records[len(acknowledged) : upto]:
                await append_acknowledged(writing, contest, record)
                acknowledged.append(record)
                await asyncio.sleep(0.01)

        writer = asyncio.create_task(write(80))
        await asyncio.sleep(0.2)
        moved = await migrate_slot(ports, SLOT_KEY % contest, source, target)
        await writer
        assert moved >= 2  # the stream and its id index moved, the writer going on meanwhile
        await write(len(records))  # after the move: only a notification from the new owner wakes the reader

        assert await reader == records
        assert await writing.read(contest) == records
        assert [r.version for r in await reading.read(contest)] == list(range(1, len(records) + 1))
        slot = key_slot((SLOT_KEY % contest).encode())
        assert await keys_in_slot(source.port, slot) == 0 and await keys_in_slot(target.port, slot) >= 2
    finally:
        await reading.close()
        await writing.close()
