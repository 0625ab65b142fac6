"""The sqlite store remembers the event loop its appends run on (asking for it costs a system call on
Python 3.11), yet serves whichever loop uses it: one after another in a thread, even when the first loop is
only stopped, not closed, and a loop in another thread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from server.store import SqliteStore
from tests.store.test_group_commit import chain


def test_appends_from_a_second_loop_after_the_first_stopped(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "loops.sqlite3")
    first, second = asyncio.new_event_loop(), asyncio.new_event_loop()
    try:
        one = chain("c", 1, 1)
        assert first.run_until_complete(store.append("c", one, 0)) == [1]
        two = chain("c", 2, 2, prev=one[0].hash)
        assert second.run_until_complete(asyncio.wait_for(store.append("c", two, 1), 5)) == [2, 3]
        assert second.run_until_complete(store.read("c")) == one + two
        second.run_until_complete(store.close())
    finally:
        first.close()
        second.close()


def test_appends_from_a_loop_in_another_thread_while_the_first_runs(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "threads.sqlite3")
    one = chain("c", 1, 1)
    two = chain("c", 2, 1, prev=one[0].hash)
    got: list[object] = []

    async def main() -> None:
        assert await store.append("c", one, 0) == [1]
        loop = asyncio.get_running_loop()
        # While this loop runs (and waits here), another thread's loop appends through the same store.
        await loop.run_in_executor(
            None, lambda: got.append(asyncio.run(asyncio.wait_for(store.append("c", two, 1), 5)))
        )
        assert await store.read("c") == one + two
        await store.close()

    asyncio.run(main())
    assert got == [[2]]
