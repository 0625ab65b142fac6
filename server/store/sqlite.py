"""The embedded EventStore: one SQLite file (WAL, synchronous=FULL), one writer thread per store.

Every call runs on the store's single worker thread, so the event loop never blocks and this process's
writes are serialized; SQLite's write lock (each write statement or ``BEGIN IMMEDIATE`` takes it first)
serializes them against other processes on the same file.
Appends are committed in groups: those that arrive while a transaction is being committed share the next
one (one fsync for all of them): one statement inserts their rows and checks what they continue, or, when
one of them conflicts or is a retry, each is taken under its own savepoint so a conflict refuses only its own.
Tailing readers are woken in-process after an append; appends made by another process are found by one
watcher per store, which checks every ``poll`` seconds whether anything was committed and wakes only the
readers of contests that moved.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from server.store.batch import check_batch, check_head, check_retry
from server.store.fanout import PAGE, Bell, tail
from server.store.port import (
    CONFLICT_TAIL,
    CONTEST_PAGE,
    SIBLING,
    ConflictError,
    DuplicateError,
    EventStore,
    Record,
    Snapshot,
    StoreError,
    UnavailableError,
    sibling,
)
from server.store.readiness import Shard, probed
from server.store.settle import settle

log = logging.getLogger(__name__)

DEFAULT_PATH = Path("agon-data") / "agon.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    contest TEXT NOT NULL,
    version INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    data BLOB NOT NULL,
    hash TEXT NOT NULL DEFAULT '',
    prev_hash TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (contest, version),
    UNIQUE (contest, event_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    contest TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS indexes (
    name TEXT NOT NULL,
    member TEXT NOT NULL,
    PRIMARY KEY (name, member)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS secrets (
    contest TEXT NOT NULL,
    name TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (contest, name)
);
"""

_SELECT = "SELECT version, event_id, data, hash, prev_hash FROM events"

_CONTESTS_AFTER = """
WITH RECURSIVE listed(contest) AS (
    SELECT (SELECT min(contest) FROM events WHERE contest > ?1)
    UNION ALL
    SELECT (SELECT min(contest) FROM events WHERE contest > listed.contest) FROM listed WHERE contest IS NOT NULL
)
SELECT contest FROM listed WHERE contest IS NOT NULL AND instr(contest, ?2) = 0
"""
"""The contests after ``?1`` in order, sibling streams (holding ``?2``) left out. Each step is one seek in the
(contest, event_id) index to the next contest id, so a page costs one seek per contest (and sibling) listed,
never a walk over the events of the contests on it, and counting them all costs one seek per contest."""

_T = TypeVar("_T")
_Append = tuple[str, list[Record], int, "asyncio.Future[list[int]]"]


def _record(row: tuple[int, str, bytes, str, str]) -> Record:
    version, event_id, data, hash_, prev_hash = row
    return Record(version, event_id, bytes(data), hash_, prev_hash)


def _add_hash_columns(conn: sqlite3.Connection) -> None:
    """Files written before events carried their hashes get the columns (empty: matches any prev_hash)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    for column in ("hash", "prev_hash"):
        if column not in columns:
            try:
                conn.execute(f"ALTER TABLE events ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError as error:
                if "duplicate column" not in str(error):  # else another opener added it first
                    raise


class SqliteStore(EventStore):
    def __init__(self, path: str | Path = DEFAULT_PATH, *, poll: float = 1.0, busy_timeout: float = 30.0) -> None:
        self._path = Path(path)
        self._poll = poll
        self._busy_timeout = busy_timeout
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agon-sqlite")
        self._conn: sqlite3.Connection | None = None
        self._bell = Bell()
        self._loop: tuple[asyncio.AbstractEventLoop, int] | None = None  # the loop appends ran on, and its thread
        self._closed = False
        self._watched: dict[str, int] = {}  # contest -> tailing readers in this process
        self._heads: dict[str, int] = {}  # the head the watcher last saw of each watched contest
        self._watcher: asyncio.Task[None] | None = None
        self._waiting: list[_Append] = []  # appends waiting for the next group commit
        self._committer: asyncio.Task[None] | None = None

    # --- the worker thread -------------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            # No busy handler: ``_run`` tries again itself, sooner than SQLite's would (see ``_while_locked``).
            conn = sqlite3.connect(self._path, timeout=0, isolation_level=None)
            try:
                _while_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"), self._busy_timeout)
                conn.execute("PRAGMA synchronous=FULL")
                conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
                _add_hash_columns(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        """The running event loop, remembered: on Python 3.11 each ``asyncio.get_running_loop()`` costs a
        ``getpid`` system call (its check for a fork), and appends ask for it under load. A loop that is
        running in this thread is the running loop (a thread runs one loop at a time)."""
        thread = threading.get_ident()
        if self._loop is not None and self._loop[1] == thread and self._loop[0].is_running():
            return self._loop[0]
        loop = asyncio.get_running_loop()
        self._loop = (loop, thread)
        return loop

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        if self._closed:
            raise UnavailableError("store is closed")
        loop = self._event_loop()
        try:
            return await loop.run_in_executor(
                self._executor, lambda: _while_locked(lambda: work(self._db()), self._busy_timeout)
            )
        except (sqlite3.OperationalError, OSError, RuntimeError) as error:
            # RuntimeError: the executor was shut down by close() before this call was queued.
            raise UnavailableError(f"sqlite {self._path}: {error}") from error

    @staticmethod
    def _append_many(conn: sqlite3.Connection, appends: Sequence[_Append]) -> list[list[int] | StoreError]:
        """Group commit: the appends waiting at once, in one statement — one transaction, one fsync — per
        chunk of them. A chunk holding a conflict or a retry changes nothing and is taken again append by
        append, each under its own savepoint, so a conflicting one changes nothing and the others commit.

        Each statement costs the writer thread the interpreter lock once more, which it waits for while the
        event loop is busy: a group of plain appends costs one statement, however many appends it holds."""
        out: list[list[int] | StoreError] = []
        for chunk in _chunks(appends):
            done = _append_plain(conn, chunk)
            if done is None:
                with _immediate(conn):
                    done = _append_each(conn, chunk)
            out.extend(done)
        return out

    # --- the port ----------------------------------------------------------------------------------

    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        check_batch(records, expected_version)
        if self._closed:
            raise UnavailableError("store is closed")
        loop = self._event_loop()
        done: asyncio.Future[list[int]] = loop.create_future()
        self._waiting.append((contest, list(records), expected_version, done))
        if self._committer is None or self._committer.done():
            self._committer = loop.create_task(self._commit(), name="agon-sqlite-commit")
        versions = await done
        self._bell.ring(contest, max(versions))
        return versions

    async def _commit(self) -> None:
        """Write what waits, in groups: while one transaction is being committed, the appends that arrive
        wait together for the next one."""
        while self._waiting:
            group, self._waiting = self._waiting, []
            try:
                results = await self._run(functools.partial(self._append_many, appends=group))
            except BaseException as error:
                for *_, done in group:
                    settle(done, error if isinstance(error, Exception) else UnavailableError(str(error)))
                if not isinstance(error, Exception):
                    raise
                continue
            for (*_, done), result in zip(group, results, strict=True):
                settle(done, result)

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        def work(conn: sqlite3.Connection) -> list[Record]:
            rows = conn.execute(
                f"{_SELECT} WHERE contest = ? AND version > ? ORDER BY version LIMIT ?",
                (contest, after, -1 if limit is None else max(limit, 0)),
            )
            return [_record(row) for row in rows]

        return await self._run(work)

    async def head(self, contest: str) -> int:
        return await self._run(lambda conn: _head(conn, contest))

    async def find(self, contest: str, event_id: str) -> int | None:
        def work(conn: sqlite3.Connection) -> int | None:
            row = conn.execute(
                "SELECT version FROM events WHERE contest = ? AND event_id = ?", (contest, event_id)
            ).fetchone()
            return None if row is None else int(row[0])

        return await self._run(work)

    def subscribe(self, contest: str, after: int = 0, known: Callable[[], int] | None = None) -> AsyncIterator[Record]:
        records = tail(
            lambda since: self.read(contest, since, PAGE),
            lambda: self._bell.ticket(contest),
            lambda: self._closed,
            after,
            poll=None,  # woken by this process's appends, and by the one watcher for other processes'
            known=known,
            head=lambda: self._bell.head(contest),
        )
        return self._watching(contest, records)

    async def _watching(self, contest: str, records: AsyncIterator[Record]) -> AsyncIterator[Record]:
        self._watched[contest] = self._watched.get(contest, 0) + 1
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="agon-sqlite-watcher")
        try:
            async for record in records:
                yield record
        finally:
            left = self._watched.get(contest, 1) - 1
            if left:
                self._watched[contest] = left
            else:
                self._watched.pop(contest, None)
                self._heads.pop(contest, None)
                self._bell.forget(contest)

    async def _watch(self) -> None:
        """One watcher per store, however many contests are followed: every ``poll`` seconds it asks
        SQLite whether another connection committed (``PRAGMA data_version``), and only then reads the
        heads of the watched contests in one query and wakes the readers of those that moved."""
        seen_version: int | None = None
        while not self._closed and self._watched:
            try:
                version = await self._run(lambda conn: int(conn.execute("PRAGMA data_version").fetchone()[0]))
                if version != seen_version:
                    seen_version = version
                    watched = list(self._watched)
                    heads = await self._run(functools.partial(_heads_of, contests=watched))
                    for contest in watched:
                        head = heads.get(contest, 0)
                        if self._heads.get(contest) != head:
                            self._heads[contest] = head
                            self._bell.ring(contest, head)
            except UnavailableError as error:
                if self._closed:
                    return
                log.warning("sqlite watcher: %s", error)
                self._bell.ring_all()  # readers find out for themselves
            await asyncio.sleep(self._poll)

    async def save_snapshot(self, contest: str, snapshot: Snapshot) -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO snapshots (contest, version, data) VALUES (?, ?, ?)"
                " ON CONFLICT (contest) DO UPDATE SET version = excluded.version, data = excluded.data"
                " WHERE excluded.version >= snapshots.version",
                (contest, snapshot.version, snapshot.data),
            )

        await self._run(work)

    async def load_snapshot(self, contest: str) -> Snapshot | None:
        def work(conn: sqlite3.Connection) -> Snapshot | None:
            row = conn.execute("SELECT version, data FROM snapshots WHERE contest = ?", (contest,)).fetchone()
            return None if row is None else Snapshot(row[0], bytes(row[1]))

        return await self._run(work)

    async def delete_snapshots(self, contest: str) -> None:
        await self._run(lambda conn: conn.execute("DELETE FROM snapshots WHERE contest = ?", (contest,)))

    async def save_secret(self, contest: str, name: str, value: bytes) -> None:
        await self._run(
            lambda conn: conn.execute(
                "INSERT OR REPLACE INTO secrets (contest, name, value) VALUES (?, ?, ?)", (contest, name, value)
            )
        )

    async def load_secret(self, contest: str, name: str) -> bytes | None:
        def work(conn: sqlite3.Connection) -> bytes | None:
            row = conn.execute("SELECT value FROM secrets WHERE contest = ? AND name = ?", (contest, name)).fetchone()
            return None if row is None else bytes(row[0])

        return await self._run(work)

    async def contests_page(self, after: str = "", limit: int = CONTEST_PAGE) -> list[str]:
        def work(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute(f"{_CONTESTS_AFTER} LIMIT ?", (after, SIBLING, max(limit, 0)))
            return [row[0] for row in rows]

        return await self._run(work)

    async def count_contests(self) -> int:
        def work(conn: sqlite3.Connection) -> int:
            row = conn.execute(f"SELECT count(*) FROM ({_CONTESTS_AFTER})", ("", SIBLING)).fetchone()
            return int(row[0])

        return await self._run(work)

    async def index_add(self, index: str, member: str) -> None:
        await self._run(
            lambda conn: conn.execute("INSERT OR IGNORE INTO indexes (name, member) VALUES (?, ?)", (index, member))
        )

    async def index_members(self, index: str) -> list[str]:
        def work(conn: sqlite3.Connection) -> list[str]:
            return [
                row[0] for row in conn.execute("SELECT member FROM indexes WHERE name = ? ORDER BY member", (index,))
            ]

        return await self._run(work)

    async def remove(self, contest: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            siblings = sibling(contest, "")  # and the streams kept beside it: ``<contest>~<name>``
            with _immediate(conn):
                for table in ("events", "snapshots", "secrets"):
                    conn.execute(
                        f"DELETE FROM {table} WHERE contest = ? OR substr(contest, 1, ?) = ?",
                        (contest, len(siblings), siblings),
                    )

        await self._run(work)

    async def ping(self) -> None:
        await self._run(lambda conn: conn.execute("SELECT 1").fetchone())

    async def ready(self, timeout: float = 2.0) -> list[Shard]:
        return [await probed("sqlite", self._run(sqlite_probe), timeout)]

    def shard(self, contest: str) -> str:
        return "sqlite"

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._bell.ring_all()
        if self._committer is not None:
            with contextlib.suppress(Exception):
                await self._committer
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher

        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        await asyncio.get_running_loop().run_in_executor(self._executor, shut)
        self._executor.shutdown(wait=False)


def sqlite_probe(conn: sqlite3.Connection) -> None:
    """Readiness (``server.store.readiness``): the write lock an append takes, a read, and nothing written."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("SELECT version FROM events LIMIT 1").fetchall()
    finally:
        conn.execute("ROLLBACK")


@contextlib.contextmanager
def _immediate(conn: sqlite3.Connection) -> Iterator[None]:
    """A write transaction: taken with the write lock first, committed at the end, rolled back on any error
    (nothing to roll back when taking the lock itself failed)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _while_locked(work: Callable[[], _T], timeout: float) -> _T:
    """``work()``, tried again after a short pause while another connection (another process) holds the lock
    it needs, for at most ``timeout`` seconds. SQLite's own busy handler sleeps 1, 2, 5, 10, 15 ms and more
    between tries: two processes appending to one file waited that long for each other's commits, which take
    a fraction of a millisecond. Every unit of work the store runs is one statement or one transaction, so
    trying it again repeats nothing (an append that committed comes back as its own retry)."""
    deadline = time.monotonic() + timeout
    pause = 0.0001
    while True:
        try:
            return work()
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(2 * pause, 0.002)


_INSERT_INTO = "INSERT INTO events (contest, version, event_id, data, hash, prev_hash)"
_CHUNK = 150  # rows per statement: 900 parameters at most, within any SQLite's limit
_Row = tuple[str, int, str, bytes, str, str]
_Link = tuple[str, int, str]


def _row(contest: str, record: Record) -> _Row:
    """A record as the columns of ``_INSERT_INTO``."""
    return (contest, record.version, record.event_id, record.data, record.hash, record.prev_hash)


def _chunks(appends: Sequence[_Append]) -> list[list[_Append]]:
    """The appends in order, in chunks of at most ``_CHUNK`` rows (a bigger append is a chunk alone)."""
    chunks: list[list[_Append]] = []
    rows = _CHUNK
    for append in appends:
        if rows + len(append[1]) > _CHUNK:
            chunks.append([])
            rows = 0
        chunks[-1].append(append)
        rows += len(append[1])
    return chunks


def _append_plain(conn: sqlite3.Connection, appends: Sequence[_Append]) -> list[list[int] | StoreError] | None:
    """The appends in one INSERT statement outside any transaction (so SQLite commits it by itself: one
    statement, one fsync), or None when it stored nothing because they are not all plain appends.

    A version taken already (a conflict) or an event id stored already (a retry) fails the statement on
    the table's constraints. What a batch continues is checked in the same statement: its previous version
    must be stored with the hash the batch chains onto (else the contest is behind it), unless the previous
    version is the end of an earlier batch of the same contest in the chunk."""
    rows: list[_Row] = []
    links: list[_Link] = []
    ends: dict[str, tuple[int, str]] = {}
    for contest, records, expected, _ in appends:
        if len(records) > _CHUNK:
            return None
        end = ends.get(contest)
        if end is not None:
            if end != (expected, records[0].prev_hash):
                return None
        elif expected:
            links.append((contest, expected, records[0].prev_hash))
        ends[contest] = (records[-1].version, records[-1].hash)
        rows.extend(_row(contest, r) for r in records)
    sql = f"{_INSERT_INTO} SELECT * FROM (VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(rows)) + ")"
    if links:
        sql += (
            " WHERE (SELECT count(*) FROM (VALUES " + ", ".join(["(?, ?, ?)"] * len(links)) + ") AS link"
            " JOIN events ON events.contest = link.column1 AND events.version = link.column2"
            f" WHERE events.hash IN ('', link.column3)) = {len(links)}"  # a head stored without a hash matches
        )
    try:
        inserted = conn.execute(sql, [*(v for row in rows for v in row), *(v for link in links for v in link)]).rowcount
    except sqlite3.IntegrityError:
        return None
    if inserted != len(rows):
        return None
    return [[r.version for r in records] for _, records, _, _ in appends]


def _append_each(conn: sqlite3.Connection, appends: Sequence[_Append]) -> list[list[int] | StoreError]:
    out: list[list[int] | StoreError] = []
    for contest, records, expected, _ in appends:
        conn.execute("SAVEPOINT one")
        try:
            out.append(_append_one(conn, contest, records, expected))
        except (ConflictError, DuplicateError) as refused:
            conn.execute("ROLLBACK TO one")
            out.append(refused)
        conn.execute("RELEASE one")
    return out


def _append_one(conn: sqlite3.Connection, contest: str, records: Sequence[Record], expected: int) -> list[int]:
    """One append inside the group's transaction: the head read once, the rows inserted; the event ids'
    unique constraint finds a retry (acknowledged only with identical content)."""
    row = conn.execute(
        "SELECT version, hash FROM events WHERE contest = ? ORDER BY version DESC LIMIT 1", (contest,)
    ).fetchone()
    head, head_hash = (0, "") if row is None else (int(row[0]), str(row[1]))
    chains = not head_hash or head_hash == records[0].prev_hash
    if head == expected and chains:
        try:
            conn.executemany(
                f"{_INSERT_INTO} VALUES (?, ?, ?, ?, ?, ?)",
                [_row(contest, r) for r in records],
            )
            return [r.version for r in records]
        except sqlite3.IntegrityError:  # an event id is stored already: a retry, or a duplicate
            conn.execute("ROLLBACK TO one")  # undo the rows inserted before it (the append's savepoint)
    stored = [
        _record(row)
        for r in records
        for row in conn.execute(f"{_SELECT} WHERE contest = ? AND event_id = ?", (contest, r.event_id))
    ]
    if stored and len(stored) == len(records):
        return check_retry(contest, stored, records)
    if stored:
        raise DuplicateError(f"{len(stored)} of {len(records)} event ids are already in {contest}")
    if head != expected:
        tail = conn.execute(
            f"{_SELECT} WHERE contest = ? AND version > ? ORDER BY version LIMIT ?", (contest, expected, CONFLICT_TAIL)
        )
        raise ConflictError(f"{contest} is at version {head}, not {expected}", [_record(row) for row in tail])
    check_head(contest, head_hash, records)
    raise ConflictError(f"{contest}: the batch cannot be stored")  # pragma: no cover - check_head raised


def _heads_of(conn: sqlite3.Connection, contests: list[str]) -> dict[str, int]:
    # One lookup per contest: sqlite answers MAX(version) for one contest from the primary key's end, while a
    # grouped query over several reads every row of each (a 100,000-event contest took 30 ms per poll).
    return {contest: _head(conn, contest) for contest in contests}


def _head(conn: sqlite3.Connection, contest: str) -> int:
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM events WHERE contest = ?", (contest,)).fetchone()
    return int(row[0])
