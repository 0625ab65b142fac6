"""Faults found from outside, on every store: two creators racing for one contest id with one command id,
and a store that comes back behind what it acknowledged (an ``everysec`` power loss, a lagging replica, a
restore from backup)."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from redis.asyncio import Redis, RedisCluster

from protocol import errors
from protocol.errors import Refused
from protocol.events import Envelope
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.store import EventStore, MemoryStore, open_store
from server.store.port import Record, UnavailableError
from server.store.redis import CLUSTER_SCHEME, cluster_nodes
from tests.engine.table import GM, duel


@pytest.fixture
async def store(spec: str) -> AsyncIterator[EventStore]:
    opened = open_store(spec)
    yield opened
    await opened.close()


async def log_of(store: EventStore, contest: str) -> list[Envelope]:
    return [msgspec.json.decode(r.data, type=Envelope) for r in await store.read(contest)]


async def test_two_creates_with_one_contest_id_and_command_id_give_one_contest(store: EventStore) -> None:
    contest = f"twin-{uuid.uuid4().hex[:8]}"
    request = msgspec.structs.replace(duel(dice="server"), contest=contest)
    first, second = ContestService(store), ContestService(store)
    results = await asyncio.gather(
        first.create(GM, request, "create"), second.create(GM, request, "create"), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, Refused)]
    assert len(refused) == 1 and refused[0].code == errors.CONTEST_EXISTS
    winner = first if not isinstance(results[0], Refused) else second
    report = audit(await log_of(store, contest), ruleset_named)
    assert report.finding is None
    # The creator that won sees what the log holds: its seed opens the committed hash.
    assert (await winner.seed(contest)) is not None


async def lose_tail(spec: str, store: EventStore, contest: str, keep: int) -> None:
    """Make the store forget every event after ``keep``, as a restore from an older backup would."""
    if isinstance(store, MemoryStore):
        events = store._events[contest]  # a unit-test store: reach in, like a restore would
        for record in events[keep:]:
            del store._ids[contest][record.event_id]
        del events[keep:]
    elif spec.startswith("sqlite:"):
        with sqlite3.connect(spec.removeprefix("sqlite:")) as conn:
            conn.execute("DELETE FROM events WHERE contest = ? AND version > ?", (contest, keep))
    else:
        redis: Redis | RedisCluster = (
            RedisCluster(startup_nodes=cluster_nodes(spec)[0])
            if spec.startswith(CLUSTER_SCHEME)
            else Redis.from_url(spec)
        )
        stream, ids = f"agon:{{{contest}}}:events", f"agon:{{{contest}}}:ids"
        entries = await redis.xrange(stream)
        await redis.delete(stream)  # a restored stream's top id is its last kept entry
        for entry_id, fields in entries:
            if int(entry_id.rpartition(b"-")[2]) <= keep:
                await redis.xadd(stream, fields, id=entry_id)
            else:
                await redis.hdel(ids, fields[b"id"])
        await redis.aclose()


async def adjust(service: ContestService, contest: str, note: str) -> int:
    result = await service.execute(contest, GM, note, x.Adjust(contestant="aria", delta=1, reason=note))
    return result.version


async def test_a_store_that_comes_back_behind_never_forks_the_contest(spec: str, store: EventStore) -> None:
    contest = f"behind-{uuid.uuid4().hex[:8]}"
    veteran = ContestService(store)
    await veteran.create(GM, msgspec.structs.replace(duel(), contest=contest))
    for i in range(3):
        head = await adjust(veteran, contest, f"veteran-{i}")
    await lose_tail(spec, store, contest, head - 1)  # the last acknowledged event is gone

    newcomer = ContestService(store if isinstance(store, MemoryStore) else open_store(spec))
    assert await adjust(newcomer, contest, "newcomer") == head  # a fresh process writes at the lost version
    # The veteran still holds the lost head: its append must not chain onto it.
    assert await adjust(veteran, contest, "veteran-after") == head + 1
    report = audit(await log_of(store, contest), ruleset_named)
    assert report.finding is None, report.finding
    assert veteran.lost == {contest: 1}
    _, state = await veteran.load(contest)
    reasons = [e.event.reason for e in await log_of(store, contest) if isinstance(e.event, x.ApAdjusted)]
    assert reasons == ["veteran-0", "veteran-1", "newcomer", "veteran-after"]
    assert state.version == head + 1
    if newcomer.store is not store:
        await newcomer.store.close()


class DroppingOut:
    """A real store whose next ``failing`` reads fail, as when it drops out again just after a restart."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self.failing = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        if self.failing:
            self.failing -= 1
            raise UnavailableError("the store dropped out again")
        return await self._store.read(contest, after, limit)


async def test_a_store_that_drops_out_while_a_loss_is_found_still_reports_it(spec: str, store: EventStore) -> None:
    contest = f"again-{uuid.uuid4().hex[:8]}"
    flaky = DroppingOut(store)
    veteran = ContestService(flaky)  # type: ignore[arg-type]
    await veteran.create(GM, msgspec.structs.replace(duel(), contest=contest))
    for i in range(3):
        head = await adjust(veteran, contest, f"veteran-{i}")
    await lose_tail(spec, store, contest, head - 2)  # the last two acknowledged events are gone
    flaky.failing = 1  # the append conflicts; reading what the store holds then fails
    with pytest.raises(UnavailableError):
        await adjust(veteran, contest, "during")
    assert veteran.lost == {}
    # The next command finds the loss, reports it, and is written after what the store holds.
    assert await adjust(veteran, contest, "during") == head - 1
    assert veteran.lost == {contest: 2}
    assert audit(await log_of(store, contest), ruleset_named).finding is None


async def test_a_command_sent_again_after_the_store_lost_it_is_stored_again(spec: str, store: EventStore) -> None:
    contest = f"resent-{uuid.uuid4().hex[:8]}"
    veteran = ContestService(store)
    await veteran.create(GM, msgspec.structs.replace(duel(), contest=contest))
    head = await adjust(veteran, contest, "kept")
    assert await adjust(veteran, contest, "lost") == head + 1
    await lose_tail(spec, store, contest, head)  # its ack went missing, and the store came back without it
    again = await veteran.execute(contest, GM, "lost", x.Adjust(contestant="aria", delta=1, reason="lost"))
    assert again.version == head + 1 and not again.repeated
    assert veteran.lost == {contest: 1}
    reasons = [e.event.reason for e in await log_of(store, contest) if isinstance(e.event, x.ApAdjusted)]
    assert reasons == ["kept", "lost"]
    # Sent once more, it is a repeat: the store holds it.
    assert (await veteran.execute(contest, GM, "lost", x.Adjust(contestant="aria", delta=1, reason="lost"))).repeated


async def test_a_snapshot_of_a_lost_history_is_not_loaded(spec: str, store: EventStore) -> None:
    contest = f"snap-{uuid.uuid4().hex[:8]}"
    writer = ContestService(store, snapshot_every=3)
    await writer.create(GM, msgspec.structs.replace(duel(), contest=contest))
    for i in range(4):
        await adjust(writer, contest, f"w-{i}")
    await writer.drain()
    snapshot = await store.load_snapshot(contest)
    assert snapshot is not None and snapshot.version == 6
    await lose_tail(spec, store, contest, 4)
    fresh = ContestService(store)
    _, state = await fresh.load(contest)
    assert state.version == 4
    assert await adjust(fresh, contest, "after") == 5
    assert audit(await log_of(store, contest), ruleset_named).finding is None
