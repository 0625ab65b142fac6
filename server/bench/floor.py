"""The floor: the least a WebSocket broadcast server can do for the same load.

Clients say ``{"type": "hello", "room": R}``; a ``{"type": "command", "id": I, "room": R}`` makes the
server send every member of the room the sample frames Agon sent for one command (a patch with its
notice, recorded by the benchmark from a real run), then ``{"type": "ack", "id": I}`` to the sender.
No store, no state, no per-viewer work: what is left is the WebSocket itself.

The samples file is that list of frames, or ``{"frames": [...], "traces": {NAME: [[frame of member 0, frame
of member 1, ...], ...]}}``: the frames each member of a table received for each command of a recorded run
(``server.bench.recording``). Members then say ``{"type": "hello", "room": R, "member": M}``, and a
``{"type": "command", "id": I, "room": R, "trace": NAME, "step": K}`` sends each member its own frame of
step K (the command may carry a ``pad`` member, so that it is as long as the command Agon received).

``--durable FILE``: the *durable floor*. Each command is appended to a SQLite file (WAL, ``synchronous=FULL``) and
committed before its frames and ack are sent, as Agon makes every command durable before acking it: one writer
thread, the commands that arrive while a commit is under way committed together (group commit, as Agon's store
does). Still no state and no per-viewer work: what it adds to the floor is what durability costs by itself.

Run: python -m server.bench.floor --port PORT --samples FILE [--durable FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import queue
import signal
import sqlite3
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast, serve


class Durable:
    """Commands appended to SQLite by one writer thread, each group committed at once."""

    def __init__(self, path: Path) -> None:
        self._loop = asyncio.get_running_loop()
        self._waiting: queue.SimpleQueue[tuple[bytes, asyncio.Future[None]]] = queue.SimpleQueue()
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS commands (n INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        threading.Thread(target=self._write, name="floor-writer", daemon=True).start()

    async def append(self, command: bytes) -> None:
        """Return once ``command`` is committed."""
        done = self._loop.create_future()
        self._waiting.put((command, done))
        await done

    def _write(self) -> None:
        while True:
            group = [self._waiting.get()]
            while not self._waiting.empty():
                group.append(self._waiting.get())
            failed: sqlite3.Error | None = None
            try:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT INTO commands (data) VALUES (?)", [(command,) for command, _ in group])
                self._db.execute("COMMIT")
            except sqlite3.Error as error:  # the command is not answered: the benchmark sees the error
                failed = error
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            self._loop.call_soon_threadsafe(_settle, [done for _, done in group], failed)


def _settle(group: list[asyncio.Future[None]], failed: sqlite3.Error | None) -> None:
    for done in group:
        if done.done():
            continue
        if failed is None:
            done.set_result(None)
        else:
            done.set_exception(failed)


async def main(port: int, samples: list[str] | dict[str, Any], durable_at: Path | None = None) -> None:
    durable = Durable(durable_at) if durable_at is not None else None
    frames: list[str] = samples if isinstance(samples, list) else samples.get("frames", [])
    traces: dict[str, list[list[str]]] = {} if isinstance(samples, list) else samples.get("traces", {})
    rooms: dict[str, set[ServerConnection]] = defaultdict(set)
    seats: dict[str, dict[int, ServerConnection]] = defaultdict(dict)

    async def handler(ws: ServerConnection) -> None:
        room: str | None = None
        try:
            async for message in ws:
                data = json.loads(message)
                if data["type"] == "hello":
                    room = str(data["room"])
                    rooms[room].add(ws)
                    if "member" in data:
                        seats[room][int(data["member"])] = ws
                    await ws.send(json.dumps({"type": "welcome", "room": room}))
                elif data["type"] == "command":
                    if durable is not None:
                        await durable.append(message.encode() if isinstance(message, str) else message)
                    if "trace" in data:
                        members = seats[str(data["room"])]
                        for member, frame in enumerate(traces[data["trace"]][data["step"]]):
                            broadcast([members[member]], frame)
                    else:
                        for frame in frames:
                            broadcast(rooms[str(data["room"])], frame)
                    await ws.send(json.dumps({"type": "ack", "id": data["id"]}))
        finally:
            if room is not None:
                rooms[room].discard(ws)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    async with serve(handler, "127.0.0.1", port, compression=None, max_size=2**20):
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="floor")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--samples", type=Path, required=True)
    parser.add_argument("--durable", type=Path, help="append each command to this SQLite file before answering it")
    args = parser.parse_args()
    asyncio.run(main(args.port, json.loads(args.samples.read_text()), args.durable))
