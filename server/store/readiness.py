"""Whether a store can serve right now: read from and append to every part (shard) of it (``GET /readyz``).

Each backend answers ``ready()`` with one ``Shard`` per part it writes to:

- memory: one shard, always ready.
- sqlite: one shard, ``sqlite``. The probe takes the write lock (``BEGIN IMMEDIATE``), reads the events table and
  rolls back: the same lock every append takes first, so a file another process holds locked, a read-only file
  or a vanished directory shows, while nothing is written, nothing is fsynced and the schema gains no table. A
  full disk is only seen by the next append that needs a new page.
- redis: one shard per server, named ``host:port`` (never its password). The probe writes a probe key of its own
  (``agon:ready:{<tag>}``, expiring after ``PROBE_TTL_MS``, never part of a contest) and reads it back, in one
  round trip. In a Redis Cluster the probe key of each primary holding slots is hashed to one of that primary's
  slots, so every shard is written and read; slots no primary serves make the store not ready as well.

``ReadinessCache`` keeps the last answer for about a second and lets concurrent callers share one probe, so a
load balancer polling many times a second does not multiply the probes.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from server.store.port import UnavailableError
from server.store.shard import Shard as Shard
from server.store.shard import all_ready as all_ready

PROBE_PREFIX = "agon:ready:"
PROBE_TTL_MS = 10_000
"""How long a probe key lives: it is rewritten at each probe and vanishes by itself when the probes stop."""


def probe_key(tag: str, writer: str = "") -> str:
    """The probe key of one store (``writer``: its name) in the slot of ``tag``: each process writes its own, so
    a probe reads back what it wrote even while other processes probe the same shard."""
    return f"{PROBE_PREFIX}{{{tag}}}:{writer}" if writer else f"{PROBE_PREFIX}{{{tag}}}"


@functools.cache
def tag_for_slot(slot: int) -> str:
    """A hash tag whose probe key falls in ``slot`` of a Redis Cluster (found by trying tags in turn)."""
    if not 0 <= slot < REDIS_CLUSTER_HASH_SLOTS:
        raise ValueError(f"no slot {slot}")
    for number in itertools.count():
        tag = f"r{number}"
        if key_slot(probe_key(tag).encode()) == slot:
            return tag
    raise AssertionError("unreachable")  # pragma: no cover


def slot_owners(slots: dict[int, list[Any]]) -> tuple[dict[str, int], list[int]]:
    """From a cluster client's slot table (slot -> [primary, replicas...]): one slot of each primary (by its
    ``host:port`` name), and the slots no primary serves."""
    first: dict[str, int] = {}
    uncovered: list[int] = []
    for slot in range(REDIS_CLUSTER_HASH_SLOTS):
        nodes = slots.get(slot)
        if not nodes:
            uncovered.append(slot)
            continue
        first.setdefault(str(nodes[0].name), slot)
    return first, uncovered


def describe_slots(slots: Sequence[int]) -> str:
    """``0-5460, 10923`` for the slots given (sorted)."""
    ranges: list[str] = []
    for _, run in itertools.groupby(enumerate(slots), lambda pair: pair[1] - pair[0]):
        members = [slot for _, slot in run]
        ranges.append(str(members[0]) if len(members) == 1 else f"{members[0]}-{members[-1]}")
    return ", ".join(ranges)


def problem_of(error: BaseException) -> str:
    """A one-line reason for a failed probe: the kind of error and its message, with no credentials (store errors
    name a server by its redacted URL; Redis errors name host and port only)."""
    if isinstance(error, TimeoutError):
        return "no answer in time"
    text = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def probed(name: str, probe: Awaitable[object], timeout: float) -> Shard:
    """Run one shard's probe with a timeout: the shard, ready or with the reason it is not."""
    try:
        async with asyncio.timeout(timeout):
            await probe
    except Exception as error:
        return Shard(name, problem_of(error))
    return Shard(name)


Reachable = Callable[[], contextlib.AbstractAsyncContextManager[None]]
"""A Redis store's guard: Redis's errors become ``UnavailableError`` naming the server without its password."""


async def write_and_read(client: Redis | RedisCluster, key: str, writer: str, reachable: Reachable) -> None:
    """Write the probe key and read it back (routed by its slot in a cluster, following MOVED and failovers)."""
    async with reachable():
        await _set_and_get(client, key, writer)


async def _set_and_get(client: Redis | RedisCluster, key: str, writer: str) -> None:
    """Write the probe key (``writer`` as its value) and read it back; UnavailableError when it reads otherwise."""
    await client.set(key, writer, px=PROBE_TTL_MS)
    if await client.get(key) != writer.encode():
        raise UnavailableError("the probe key read back is not the one written (a replica answering reads?)")


async def redis_ready(client: Redis, name: str, writer: str, reachable: Reachable, timeout: float) -> list[Shard]:
    """One Redis server: one shard."""
    return [await probed(name, write_and_read(client, probe_key("0", writer), writer, reachable), timeout)]


class Credentials(NamedTuple):
    """Who a connection to a node logs in as: an ACL user (None: the default user) and its password."""

    username: str | None = None
    password: str | None = None

    def node(self, host: str, port: int, **options: Any) -> Redis:
        """A connection of its own to one node of a cluster, logged in as this user."""
        return Redis(host=host, port=port, username=self.username, password=self.password, **options)


async def _direct(host: str, port: int, login: Credentials, key: str, writer: str, timeout: float) -> None:
    """Write and read the probe key on one node, on a connection of the probe's own: no retry, no redirection (a
    node that gave up its slots answers MOVED, so it is not ready until the slots are learnt again)."""
    node = login.node(host, port, socket_connect_timeout=timeout, socket_timeout=timeout, retry=Retry(NoBackoff(), 0))
    try:
        await _set_and_get(node, key, writer)
    finally:
        await node.aclose()


async def cluster_ready(
    cluster: RedisCluster,
    name: str,
    writer: str,
    reachable: Reachable,
    timeout: float,
    login: Credentials,
    relearn: Callable[[], None] = lambda: None,
) -> list[Shard]:
    """A Redis Cluster: one shard per primary holding slots, each written and read at once (in parallel) on a
    connection of its own, so a dead primary costs one refused connection and never the shared client's retries;
    one more shard, named ``slots``, when some slots have no primary. After a failed probe the slots are learnt
    again (``relearn``) for the next probe: a replica that took over is then probed in its primary's place."""

    async def slots() -> tuple[dict[str, int], list[int]]:
        async with reachable():
            pass  # the slots are known (learnt again after a lost connection)
        return slot_owners(cluster.nodes_manager.slots_cache)

    try:
        async with asyncio.timeout(timeout):
            owners, uncovered = await slots()
    except Exception as error:
        return [Shard(name, problem_of(error))]

    def probe(owner: str, slot: int) -> Awaitable[None]:
        host, _, port = owner.rpartition(":")
        return _direct(host, int(port), login, probe_key(tag_for_slot(slot), writer), writer, timeout)

    shards = await asyncio.gather(
        *(probed(owner, probe(owner, slot), timeout) for owner, slot in sorted(owners.items()))
    )
    if not all_ready(shards):
        relearn()
    if uncovered:
        shards.append(Shard("slots", f"no primary serves slots {describe_slots(uncovered)}"))
    return shards


class ReadinessCache:
    """The store's readiness, asked at most once per ``ttl`` seconds; callers arriving while a probe runs wait for
    that probe. ``check`` must bound its own time (each probe runs under a timeout)."""

    def __init__(
        self,
        check: Callable[[], Awaitable[list[Shard]]],
        ttl: float = 1.0,
        on_probe: Callable[[list[Shard], list[Shard]], None] | None = None,
    ) -> None:
        self._check = check
        self._on_probe = on_probe  # told (the answer before, the new one) after each probe
        self._ttl = ttl
        self._answer: list[Shard] = []
        self._at = -float("inf")
        self._running: asyncio.Task[list[Shard]] | None = None

    async def get(self) -> list[Shard]:
        if time.monotonic() - self._at < self._ttl:
            return self._answer
        if self._running is None:
            self._running = asyncio.ensure_future(self._refresh())
        running = self._running
        return list(await asyncio.shield(running))

    async def _refresh(self) -> list[Shard]:
        try:
            answer = list(await self._check())
        except Exception as error:
            answer = [Shard("store", problem_of(error))]
        finally:
            self._running = None
        before, self._answer, self._at = self._answer, answer, time.monotonic()
        if self._on_probe is not None:
            self._on_probe(before, answer)
        return answer
