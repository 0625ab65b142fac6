"""SQLite's write lock shared with another process: an append waits while the other holds it, commits once it
is free, and gives up with ``store/unavailable`` (storing nothing) when it is held longer than the busy
timeout."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import SqliteStore, UnavailableError
from tests.store.test_group_commit import chain


@pytest.fixture
def other(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection to the store's file, as another process would hold it."""
    conn = sqlite3.connect(tmp_path / "shared.sqlite3", isolation_level=None)
    yield conn
    conn.close()


async def test_an_append_waits_for_another_writer_and_commits_when_it_is_done(
    tmp_path: Path, other: sqlite3.Connection
) -> None:
    store = SqliteStore(tmp_path / "shared.sqlite3")
    try:
        first = chain("w", 1, 1)
        await store.append("w", first, 0)
        other.execute("BEGIN IMMEDIATE")
        second = chain("w", 2, 2, prev=first[0].hash)
        appending = asyncio.create_task(store.append("w", second, 1))
        await asyncio.sleep(0.1)
        assert not appending.done()  # the other connection holds the write lock
        other.execute("COMMIT")
        assert await asyncio.wait_for(appending, 5) == [2, 3]
        assert await store.read("w") == first + second
    finally:
        await store.close()


async def test_an_append_gives_up_when_the_lock_stays_taken_past_the_busy_timeout(
    tmp_path: Path, other: sqlite3.Connection
) -> None:
    store = SqliteStore(tmp_path / "shared.sqlite3", busy_timeout=0.3)
    try:
        first = chain("w", 1, 1)
        await store.append("w", first, 0)
        other.execute("BEGIN IMMEDIATE")
        second = chain("w", 2, 1, prev=first[0].hash)
        with pytest.raises(UnavailableError) as refused:
            await store.append("w", second, 1)
        assert refused.value.code == "store/unavailable"
        other.execute("ROLLBACK")
        assert await store.read("w") == first  # nothing of it was stored
        assert await store.append("w", second, 1) == [2]  # and the same append goes through now
    finally:
        await store.close()
