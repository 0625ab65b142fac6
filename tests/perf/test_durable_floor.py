"""The durable floor (``server.bench.floor --durable``) answers a command only once it is committed to its SQLite file,
and still sends the room its frames first: what the mix's "durable floor" row says it measures."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from server.bench.procs import floor_serve

FRAMES = ['{"type":"patch","n":1}', '{"type":"patch","n":2}']


def _committed(path: Path) -> list[bytes]:
    """The commands the file holds, as a second connection reads them (what is committed, nothing pending)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT data FROM commands ORDER BY n")]


async def test_each_command_is_committed_before_its_frames_and_ack(tmp_path: Path) -> None:
    samples = tmp_path / "frames.json"
    samples.write_text(json.dumps(FRAMES))
    database = tmp_path / "floor.sqlite3"
    floor = floor_serve(samples, durable=database)
    try:
        async with (
            connect(f"ws://127.0.0.1:{floor.port}/") as player,
            connect(f"ws://127.0.0.1:{floor.port}/") as spectator,
        ):
            for ws in (player, spectator):
                await ws.send(json.dumps({"type": "hello", "room": "r"}))
                assert json.loads(await ws.recv())["type"] == "welcome"
            sent: list[bytes] = []
            for n in range(3):
                command = json.dumps({"type": "command", "id": f"c{n}", "room": "r"})
                sent.append(command.encode())
                # While another writer holds the file, the command cannot be committed: nothing is sent.
                blocker = sqlite3.connect(database, isolation_level=None)
                blocker.execute("BEGIN IMMEDIATE")
                await player.send(command)
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(spectator.recv(), 0.3)
                blocker.execute("ROLLBACK")
                blocker.close()
                # Once it can be, the room's frames come first, and by then the command is committed.
                assert [await spectator.recv() for _ in FRAMES] == FRAMES
                assert _committed(database) == sent
                assert [await player.recv() for _ in FRAMES] == FRAMES
                assert json.loads(await player.recv()) == {"type": "ack", "id": f"c{n}"}
    finally:
        floor.stop()


async def test_the_plain_floor_keeps_nothing(tmp_path: Path) -> None:
    samples = tmp_path / "frames.json"
    samples.write_text(json.dumps(FRAMES))
    floor = floor_serve(samples)
    try:
        async with connect(f"ws://127.0.0.1:{floor.port}/") as player:
            await player.send(json.dumps({"type": "hello", "room": "r"}))
            await player.recv()
            await player.send(json.dumps({"type": "command", "id": "c", "room": "r"}))
            assert [await player.recv() for _ in FRAMES] == FRAMES
            assert json.loads(await player.recv()) == {"type": "ack", "id": "c"}
    finally:
        floor.stop()
    assert list(tmp_path.iterdir()) == [samples]  # no file written
