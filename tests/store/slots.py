"""Moving one hash slot of a real Redis Cluster from its master to another while clients use it, the way an
operator's ``redis-cli --cluster reshard`` does: SETSLOT IMPORTING / MIGRATING, MIGRATE the keys one by one
(clients meanwhile get ASK and TRYAGAIN), then SETSLOT NODE on every master (the old owner's sharded
subscribers are dropped then, and MOVED sends everyone to the new owner)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from redis.asyncio import Redis
from redis.crc import key_slot

from tests.conftest import RedisClusterServers


@pytest.fixture(scope="module")
def moving_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterServers]:
    """A 3-master cluster of the test module's own: its slots are moved about."""
    cluster = RedisClusterServers(tmp_path_factory.mktemp("slot-migration"), masters=3)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@dataclass(frozen=True)
class Master:
    port: int
    id: str


async def masters(ports: list[int]) -> list[Master]:
    found = []
    for port in ports:
        async with Redis(host="127.0.0.1", port=port) as node:
            found.append(Master(port, (await node.execute_command("CLUSTER", "MYID")).decode()))
    return found


async def owner_of(ports: list[int], key: str) -> Master:
    slot = key_slot(key.encode())
    for master in await masters(ports):
        async with Redis(host="127.0.0.1", port=master.port) as node:
            if await node.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot) > 0:
                return master
    raise AssertionError(f"no master holds a key of slot {slot}")


async def keys_in_slot(port: int, slot: int) -> int:
    async with Redis(host="127.0.0.1", port=port) as node:
        return int(await node.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot))


async def migrate_slot(ports: list[int], key: str, source: Master, target: Master, pause: float = 0.1) -> int:
    """Move the slot of ``key`` from ``source`` to ``target``, ``pause`` seconds between steps; returns how
    many keys moved."""
    slot = key_slot(key.encode())
    moved = 0
    async with Redis(host="127.0.0.1", port=source.port) as old, Redis(host="127.0.0.1", port=target.port) as new:
        await new.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source.id)
        await old.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target.id)
        while keys := await old.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1):
            await asyncio.sleep(pause)  # clients keep writing: what is moved is asked for on the new owner
            await old.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)
            moved += len(keys)
        await asyncio.sleep(pause)
        # The new owner first, then the old one (which drops its subscribers of the slot), then the others.
        others = [master for master in await masters(ports) if master not in (source, target)]
        for master in (target, source, *others):
            async with Redis(host="127.0.0.1", port=master.port) as node:
                await node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target.id)
    return moved
