"""SQLite group commit: appends that arrive together share one transaction (one fsync), and each keeps
its own answer — a conflict or a retry in the group changes nothing for the others."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from server.store import ConflictError, Record, SqliteStore
from server.store.sqlite import _Append


def chain(contest: str, first: int, count: int, prev: str = "") -> list[Record]:
    out = []
    for version in range(first, first + count):
        digest = f"{contest}-{version}-{uuid.uuid4().hex[:6]}"
        out.append(Record(version, f"{contest}-e{version}", digest.encode(), digest, prev))
        prev = digest
    return out


@pytest.fixture
async def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[SqliteStore, list[int]]]:
    """A store, and the size of every transaction it committed appends in."""
    groups: list[int] = []
    original = SqliteStore._append_many

    def counting(conn: object, appends: Sequence[_Append]) -> object:
        groups.append(len(appends))
        return original(conn, appends)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteStore, "_append_many", staticmethod(counting))
    store = SqliteStore(tmp_path / "group.sqlite3")
    yield store, groups
    await store.close()


async def test_appends_arriving_together_share_transactions(counted: tuple[SqliteStore, list[int]]) -> None:
    store, groups = counted
    contests = [f"g{i}" for i in range(40)]
    batches = {c: chain(c, 1, 2) for c in contests}
    written = await asyncio.gather(*(store.append(c, batches[c], 0) for c in contests))
    assert written == [[1, 2]] * len(contests)
    for c in contests:
        assert await store.read(c) == batches[c]
    assert sum(groups) == len(contests)
    assert len(groups) < len(contests)  # fewer commits (fsyncs) than appends


async def test_a_conflict_in_a_group_refuses_only_itself(counted: tuple[SqliteStore, list[int]]) -> None:
    store, groups = counted
    first = chain("a", 1, 1)
    await store.append("a", first, 0)
    b = chain("b", 1, 1)
    await store.append("b", b, 0)
    groups.clear()
    good = chain("c", 1, 3)
    stale = chain("a", 1, 1)  # expects version 0, but "a" is at 1
    other = [Record(1, b[0].event_id, b"other content", "x", "")]  # b's event id, other content
    retried = b  # the very same batch again: acknowledged
    results = await asyncio.gather(
        store.append("c", good, 0),
        store.append("a", stale, 0),
        store.append("b", other, 0),
        store.append("b", retried, 0),
        return_exceptions=True,
    )
    assert results[0] == [1, 2, 3]
    assert isinstance(results[1], ConflictError) and isinstance(results[2], ConflictError)
    assert results[3] == [1]
    assert groups[0] > 1  # they were committed together
    assert await store.read("c") == good
    assert await store.read("a") == first
    assert await store.read("b") == b


async def statements(store: SqliteStore) -> list[str]:
    """Every SQL statement the store's writer runs from now on."""
    ran: list[str] = []
    await store._run(lambda conn: conn.set_trace_callback(ran.append))
    return ran


async def test_a_group_of_plain_appends_costs_one_statement_whatever_its_size(
    counted: tuple[SqliteStore, list[int]],
) -> None:
    # Each statement costs the writer thread the interpreter lock again, which it waits for while the event
    # loop is busy: a group's statements must not grow with the appends in it.
    store, groups = counted
    contests = [f"p{i}" for i in range(100)]
    stored = {c: chain(c, 1, 1) for c in contests}
    await asyncio.gather(*(store.append(c, stored[c], 0) for c in contests))
    ran = await statements(store)
    counts = []
    for some in (contests, contests[:3]):
        groups.clear()
        ran.clear()
        more = {c: chain(c, len(stored[c]) + 1, 1, prev=stored[c][-1].hash) for c in some}
        await asyncio.gather(*(store.append(c, more[c], len(stored[c])) for c in some))
        assert groups == [len(some)]
        counts.append(len(ran))
        for c in some:
            stored[c] += more[c]
    assert counts == [1, 1]  # one insert that checks what the batches continue, committed by itself
    for c in contests:
        assert await store.read(c) == stored[c]


async def test_appends_continuing_each_other_in_one_group_all_commit(counted: tuple[SqliteStore, list[int]]) -> None:
    store, groups = counted
    ran = await statements(store)
    first = chain("d", 1, 2)
    second = chain("d", 3, 1, prev=first[-1].hash)
    results = await asyncio.gather(store.append("d", first, 0), store.append("d", second, 2))
    assert results == [[1, 2], [3]]
    assert groups == [2]
    assert not any("SAVEPOINT" in statement for statement in ran)  # taken as plain appends
    assert await store.read("d") == first + second
