"""The presence board, on every backend: what one process publishes of a contest the others read, a change is
told to the processes listening at once, an entry that is not published again lapses, and nothing of it is ever
in a contest's stream. Each "process" here is a board of its own over a store of its own on the same backend
(memory: the same store, as servers in one process share it)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.store import EventStore, MemoryStore, SqliteStore, open_store
from server.store.boards import board_for
from server.store.presence import Here, PresenceBoard, merged

WAIT = 5.0


class Boards:
    """Boards on one backend, each over a store of its own (memory: one store), each hearing its changes."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.stores: list[EventStore] = []
        self.boards: list[PresenceBoard] = []
        self.heard: list[asyncio.Queue[str]] = []

    def open(self, ttl: float = 12.0) -> tuple[PresenceBoard, asyncio.Queue[str]]:
        if self.spec == "memory:" and self.stores:
            store = self.stores[0]
        elif self.spec.startswith("sqlite:"):
            store = SqliteStore(self.spec.removeprefix("sqlite:"), poll=0.05)
        else:
            store = open_store(self.spec)
        self.stores.append(store)
        heard: asyncio.Queue[str] = asyncio.Queue()
        board = board_for(store, heard.put_nowait, ttl=ttl)
        self.boards.append(board)
        self.heard.append(heard)
        return board, heard

    async def close(self) -> None:
        for board in self.boards:
            await board.close()
        for store in dict.fromkeys(self.stores):
            await store.close()


@pytest.fixture
async def boards(spec: str) -> AsyncIterator[Boards]:
    opened = Boards(spec)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
def contest() -> str:
    return f"presence-{uuid.uuid4().hex}"


async def told(heard: asyncio.Queue[str], contest: str) -> None:
    """Wait until the board says another process changed ``contest``."""
    async with asyncio.timeout(WAIT):
        while await heard.get() != contest:
            pass


async def test_each_process_reads_what_the_others_hold_and_hears_when_it_changes(boards: Boards, contest: str) -> None:
    first, first_heard = boards.open()
    second, _ = boards.open()
    assert first.process != second.process
    first.listen(contest)
    await asyncio.sleep(0.2)  # listening (a Redis subscription is confirmed with a first "read now")
    assert await first.share(contest, Here(seats=["gm"])) == []
    while not first_heard.empty():
        first_heard.get_nowait()

    ann = Here(seats=["ann"], spectators=2, auditors=1)
    assert await second.share(contest, ann) == [Here(seats=["gm"])]
    await told(first_heard, contest)
    assert await first.others(contest) == [ann]
    assert merged([Here(seats=["gm"]), ann]) == Here(seats=["ann", "gm"], spectators=2, auditors=1)

    await second.share(contest, None)  # nobody there any more: its entry goes, and the others hear it
    await told(first_heard, contest)
    assert await first.others(contest) == []
    assert await second.others(contest) == [Here(seats=["gm"])]


async def test_publishing_the_same_again_tells_nobody(boards: Boards, contest: str) -> None:
    first, first_heard = boards.open()
    second, _ = boards.open()
    first.listen(contest)
    here = Here(seats=["ann"])
    await second.share(contest, here)
    await told(first_heard, contest)
    await asyncio.sleep(0.3)
    while not first_heard.empty():
        first_heard.get_nowait()
    await second.share(contest, here)  # a heartbeat
    await asyncio.sleep(0.3)
    assert first_heard.empty()


# in memory, every server shares one process: an entry goes with its server, and nothing can lapse
@pytest.mark.parametrize("spec", ["sqlite", "redis", "redis-cluster"], indirect=True)
async def test_a_process_that_stops_publishing_lapses(boards: Boards, contest: str) -> None:
    first, _ = boards.open()
    second, _ = boards.open(ttl=0.3)
    await second.share(contest, Here(seats=["ann"]))
    assert await first.others(contest) == [Here(seats=["ann"])]
    await asyncio.sleep(0.5)  # "killed": never published again
    assert await first.others(contest) == []
    assert await first.share(contest, Here(seats=["gm"])) == []


@pytest.mark.parametrize("spec", ["sqlite", "redis", "redis-cluster"], indirect=True)
async def test_a_heartbeat_renews_many_contests_at_once_and_reads_the_others_of_each(
    boards: Boards, contest: str
) -> None:
    """A process's heartbeat publishes every contest it follows again in one call (``renew``): each entry lasts
    anew, the others read each, a change is heard, and what the others hold of each comes back."""
    first, _ = boards.open(ttl=0.6)
    second, second_heard = boards.open()
    tables = [f"{contest}-{i}" for i in range(5)]
    for i, table in enumerate(tables):
        second.listen(table)
        if i % 2:
            await second.share(table, Here(seats=["gm"]))
    await asyncio.sleep(0.2)  # listening
    held = {table: Here(seats=[f"p{i}"]) for i, table in enumerate(tables)}
    for table, here in held.items():
        await first.share(table, here)
    for _ in range(3):  # well past the entries' 0.6 s: they last because they are renewed
        await asyncio.sleep(0.3)
        others = await first.renew(held)
        assert others == {table: [Here(seats=["gm"])] if i % 2 else [] for i, table in enumerate(tables)}
    for table, here in held.items():
        assert await second.others(table) == [here]
    while not second_heard.empty():
        second_heard.get_nowait()
    await first.renew({tables[0]: Here(seats=["p0"], spectators=1)})  # a change, in a heartbeat
    await told(second_heard, tables[0])
    assert await second.others(tables[0]) == [Here(seats=["p0"], spectators=1)]
    await asyncio.sleep(0.8)  # no heartbeat any more: every entry lapses
    for table in tables:
        assert await second.others(table) == []


async def test_presence_is_never_in_a_contests_stream(boards: Boards, contest: str) -> None:
    board, _ = boards.open()
    await board.share(contest, Here(seats=["gm"], spectators=3))
    store = boards.stores[0]
    assert await store.head(contest) == 0
    assert await store.read(contest) == []
    assert contest not in await store.contests()


async def test_contests_are_apart(boards: Boards, contest: str) -> None:
    first, first_heard = boards.open()
    second, _ = boards.open()
    first.listen(contest)
    next_door = f"{contest}-next-door"
    await second.share(next_door, Here(seats=["bob"]))
    await asyncio.sleep(0.3)
    assert await first.others(contest) == []
    assert all(first_heard.get_nowait() == contest for _ in range(first_heard.qsize()))


def test_a_store_without_a_board_of_its_own_shares_one_in_this_process(tmp_path: Path) -> None:
    memory = MemoryStore()
    board = board_for(memory, lambda contest: None)
    assert type(board).__name__ == "MemoryBoard"
    assert type(board_for(SqliteStore(tmp_path / "a.sqlite3"), lambda contest: None)).__name__ == "SqliteBoard"
