"""The presence board in the SQLite file: a table beside the events, read and written on the store's own
connection and worker thread, so several ``agon serve`` processes sharing the file share it.

``presence``: one row per contest and process, with the process's ``Here`` (JSON) and the time (unix seconds)
until which it counts. Other processes' changes are found as the store finds their appends: every ``poll``
seconds a watcher asks SQLite whether another connection committed anything (``PRAGMA data_version``, which
this connection's own writes leave alone), and only then reads the rows of the contests listened to, telling
``on_change`` of those whose other processes' entries differ from what it read last.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import time
import uuid
from collections.abc import Mapping

from protocol.codec import decode, encode
from server.store.presence import TTL, Changed, Here
from server.store.sqlite import SqliteStore, _immediate

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS presence (
    contest TEXT NOT NULL,
    process TEXT NOT NULL,
    until REAL NOT NULL,
    here BLOB NOT NULL,
    PRIMARY KEY (contest, process)
) WITHOUT ROWID
"""


def _others(conn: sqlite3.Connection, contest: str, process: str, now: float) -> list[bytes]:
    rows = conn.execute(
        "SELECT here FROM presence WHERE contest = ? AND process <> ? AND until > ? ORDER BY process",
        (contest, process, now),
    )
    return [bytes(row[0]) for row in rows]


class SqliteBoard:
    def __init__(self, store: SqliteStore, on_change: Changed, *, ttl: float = TTL, poll: float | None = None) -> None:
        self.process = uuid.uuid4().hex
        self.ttl = ttl
        self._store = store
        self._on_change = on_change
        self._poll = store._poll if poll is None else poll
        self._made = False  # the table exists (made by the first write)
        self._listening: dict[str, list[bytes] | None] = {}  # contest -> the other entries read last
        self._watcher: asyncio.Task[None] | None = None
        self._closed = False

    def _make(self, conn: sqlite3.Connection) -> None:
        if not self._made:
            conn.execute(_SCHEMA)
            self._made = True

    async def share(self, contest: str, here: Here | None) -> list[Here]:
        return (await self._publish({contest: None if here is None else encode(here)}))[contest]

    async def renew(self, held: Mapping[str, Here]) -> dict[str, list[Here]]:
        return await self._publish({contest: encode(here) for contest, here in held.items()})

    async def _publish(self, held: Mapping[str, bytes | None]) -> dict[str, list[Here]]:
        """Each contest's entry written (None: removed) in one transaction; the others' entries of each."""
        written = await self._store._run(functools.partial(self._write_all, held))
        out: dict[str, list[Here]] = {}
        for contest, others in written.items():
            if contest in self._listening:
                self._listening[contest] = others  # what the watcher compares the next read with
            out[contest] = [decode(entry, Here) for entry in others]
        return out

    def _write_all(self, held: Mapping[str, bytes | None], conn: sqlite3.Connection) -> dict[str, list[bytes]]:
        """Each contest's entry written (None: removed), in one transaction; the others' entries of each."""
        now = time.time()
        out: dict[str, list[bytes]] = {}
        with _immediate(conn):
            self._make(conn)
            for contest, data in held.items():
                conn.execute("DELETE FROM presence WHERE contest = ? AND until <= ?", (contest, now))
                if data is None:
                    conn.execute("DELETE FROM presence WHERE contest = ? AND process = ?", (contest, self.process))
                else:
                    conn.execute(
                        "INSERT INTO presence (contest, process, until, here) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (contest, process) DO UPDATE SET until = excluded.until, here = excluded.here",
                        (contest, self.process, now + self.ttl, data),
                    )
                out[contest] = _others(conn, contest, self.process, now)
        return out

    async def others(self, contest: str) -> list[Here]:
        entries = await self._store._run(functools.partial(self._read, [contest]))
        return [decode(entry, Here) for entry in entries.get(contest, [])]

    def _read(self, contests: list[str], conn: sqlite3.Connection) -> dict[str, list[bytes]]:
        try:
            now = time.time()
            return {contest: _others(conn, contest, self.process, now) for contest in contests}
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):  # nobody has written presence to this file yet
                return {}
            raise

    def listen(self, contest: str) -> None:
        self._listening.setdefault(contest, None)
        if not self._closed and (self._watcher is None or self._watcher.done()):
            self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="agon-presence-watcher")

    def unlisten(self, contest: str) -> None:
        self._listening.pop(contest, None)

    async def _watch(self) -> None:
        seen: int | None = None
        while not self._closed and self._listening:
            try:
                version = await self._store._run(lambda conn: int(conn.execute("PRAGMA data_version").fetchone()[0]))
                if version != seen:
                    seen = version
                    contests = list(self._listening)
                    entries = await self._store._run(functools.partial(self._read, contests))
                    for contest in contests:
                        now = entries.get(contest, [])
                        if contest in self._listening and self._listening[contest] != now:
                            self._listening[contest] = now
                            self._on_change(contest)
            except Exception as error:  # the store closed or away: the owner's heartbeat tries again
                if self._closed:
                    return
                log.info("presence watcher: %s", error)
            await asyncio.sleep(self._poll)

    async def close(self) -> None:
        self._closed = True
        self._listening.clear()
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
