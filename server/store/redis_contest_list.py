"""The list of contests on Redis: sharded into a fixed number of buckets, read a bounded page at a time.

- ``agon:contests:{NN}`` (NN = 00 .. ``BUCKETS - 1``) a sorted set of the contests whose id's CRC-32 is NN
  modulo ``BUCKETS``, every member scored 0, so each bucket is ordered by id (byte order, as Redis compares
  members of equal score). The hash tag ``{NN}`` spreads the buckets over a cluster's slots, so no one key, and
  no one primary, takes every creation. A store adds a contest to its bucket (one ZADD, idempotent) right after
  the append that created it; sorted sets rather than plain sets so that a page is a range, not a read of all.
- ``agon:contests`` the one set stores written by earlier versions kept. It is still read: the first listing
  that finds it non-empty moves its members into their buckets (ZADD to the buckets, then SREM of exactly those
  members, so a contest is always in one or both, and a member added meanwhile by a process of an earlier
  version stays for the next listing to move). Nothing listed before disappears.

Costs. A page of ``limit`` ids after ``after``: one pipeline of a ZRANGEBYLEX per bucket, each asking for
``2 * ceil(limit / BUCKETS)`` ids after ``after`` (O(log n) to find the start, then the ids read), merged; only
ids up to the smallest last id of a bucket that returned all it was asked for are certainly the next ones, so
when those are fewer than ``limit`` another round continues from the last of them. Each round reads at most
``2 * BUCKETS * ceil(limit / BUCKETS)`` ids (1,024 for a page of 500) and keeps at least one bucket's worth;
with ids spread evenly by the hash a page takes one round, rarely two: never a read of the whole list.
Counting: one pipeline of ZCARD per bucket and SCARD of the legacy set, O(1) each, no member read.
"""

from __future__ import annotations

import zlib
from typing import Any

from redis.asyncio import Redis, RedisCluster

BUCKETS = 64
"""How many buckets the contest list is sharded into. Fixed: a store's contests are found by it."""

LEGACY = "agon:contests"
"""The single set of contest ids that stores written by earlier versions kept (moved into the buckets when listed)."""


def bucket_key(bucket: int) -> str:
    return f"agon:contests:{{{bucket:02d}}}"


def contest_bucket(contest: str) -> str:
    """The key of the bucket listing ``contest``."""
    return bucket_key(zlib.crc32(contest.encode()) % BUCKETS)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def add(client: Redis | RedisCluster, contest: str) -> None:
    await client.zadd(contest_bucket(contest), {contest: 0})


async def remove(client: Redis | RedisCluster, contest: str) -> None:
    await client.zrem(contest_bucket(contest), contest)
    await client.srem(LEGACY, contest)


async def count(client: Redis | RedisCluster) -> int:
    """Every bucket's size plus the legacy set's. Exact while no id is in both: one is only between a listing's
    move of a member and its removal from the legacy set, or when a process of an earlier version lists a contest
    again; the next listing removes it, so until then the figure is at most that many too high."""
    pipe: Any = client.pipeline(transaction=False)
    for bucket in range(BUCKETS):
        pipe.zcard(bucket_key(bucket))
    pipe.scard(LEGACY)
    return sum(int(size) for size in await pipe.execute())


async def page(client: Redis | RedisCluster, after: str, limit: int) -> list[str]:
    """At most ``limit`` ids after ``after``, sorted (see the module's costs)."""
    if limit <= 0:
        return []
    await _move_legacy(client)
    each = 2 * -(-limit // BUCKETS)
    found: list[str] = []
    while len(found) < limit:
        pipe: Any = client.pipeline(transaction=False)
        for bucket in range(BUCKETS):
            pipe.zrangebylex(bucket_key(bucket), f"({after}" if after else "-", "+", start=0, num=each)
        buckets = [[_text(member) for member in members] for members in await pipe.execute()]
        taken, complete = next_ids(buckets, each)
        found += taken[: limit - len(found)]
        if complete:
            break
        after = found[-1]
    return found


def next_ids(buckets: list[list[str]], each: int) -> tuple[list[str], bool]:
    """The ids certainly next in order, from each bucket's first ``each`` ids after one point: all of them up to
    the smallest last id of the buckets that may hold more (those that returned ``each``); and whether those
    are all there are (no bucket may hold more)."""
    full = [ids[-1] for ids in buckets if len(ids) >= each]
    bound = min(full) if full else None
    return sorted(i for ids in buckets for i in ids if bound is None or i <= bound), bound is None


async def _move_legacy(client: Redis | RedisCluster) -> None:
    if not await client.scard(LEGACY):
        return
    cursor = 0
    while True:
        cursor, members = await client.sscan(LEGACY, cursor, count=500)
        if members:
            pipe: Any = client.pipeline(transaction=False)
            for member in members:
                contest = _text(member)
                pipe.zadd(contest_bucket(contest), {contest: 0})
            await pipe.execute()
            await client.srem(LEGACY, *members)
        if not cursor:
            return
