"""*idle crowd*: the server's memory per idle spectator connection, next to the floor's."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from server.bench.agon import create_contests, target
from server.bench.procs import SECRET, Proc, agon_serve, floor_serve
from server.bench.report import Table, median, ratio

BATCH = 250  # connections opened at once


async def open_idle(url: str, hellos: Sequence[bytes]) -> list[ClientConnection]:
    """A connection for each hello, each once its welcome came."""
    out: list[ClientConnection] = []

    async def one(hello: bytes) -> None:
        ws = await connect(url, compression=None, ping_interval=None, open_timeout=120, max_size=2**24)
        out.append(ws)
        await ws.send(hello.decode(), text=True)
        async with asyncio.timeout(120):
            while True:
                frame = await ws.recv()
                if '"welcome"' in (frame if isinstance(frame, str) else frame.decode()):
                    return

    for start in range(0, len(hellos), BATCH):
        await asyncio.gather(*(one(hello) for hello in hellos[start : start + BATCH]))
    return out


async def _per_connection(server: Proc, url: str, hello: bytes, count: int) -> float:
    """Bytes of server RSS each idle connection adds (after a first one has warmed the server up)."""
    warm = await open_idle(url, [hello])
    await asyncio.sleep(0.3)
    before = server.rss()
    crowd = await open_idle(url, [hello] * count)
    await asyncio.sleep(1.0)
    after = server.rss()
    await asyncio.gather(*(ws.close() for ws in [*warm, *crowd]), return_exceptions=True)
    return (after - before) / count


async def run(work: Path, counts: list[int], rounds: int) -> Table:
    store = f"sqlite:{work / 'crowd.sqlite3'}"
    await create_contests(store, ["crowd"])
    agon = target(["unused"], ["crowd"], SECRET, [])
    spectator = agon.hello(0, 6)
    samples = work / "floor-frames.json"
    samples.write_text("[]")
    table = Table(
        f"idle crowd — spectators following one contest, RSS added per connection, medians of {rounds} rounds",
        ["connections", "Agon KiB/connection", "floor KiB/connection", "× floor"],
    )
    for count in counts:
        a: list[float] = []
        f: list[float] = []
        for _ in range(rounds):
            server = agon_serve(store)
            try:
                a.append(await _per_connection(server, f"ws://127.0.0.1:{server.port}/ws", spectator, count))
            finally:
                server.stop()
            floor = floor_serve(samples)
            try:
                f.append(
                    await _per_connection(floor, f"ws://127.0.0.1:{floor.port}/", b'{"type":"hello","room":0}', count)
                )
            finally:
                floor.stop()
            with contextlib.suppress(Exception):
                await asyncio.sleep(0.2)
        table.add(str(count), median(a) / 1024, median(f) / 1024, ratio(median(a), median(f)))
    table.notes.append("Each server is fresh for each measurement; the client side raises its open-file limit.")
    return table
