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
