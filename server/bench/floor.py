"""The floor: the least a WebSocket broadcast server can do for the same load.

Clients say ``{"type": "hello", "room": R}``; a ``{"type": "command", "id": I, "room": R}`` makes the
server send every member of the room the sample frames Agon sent for one command (a patch with its
notice, recorded by the benchmark from a real run), then ``{"type": "ack", "id": I}`` to the sender.
No store, no state, no per-viewer work: what is left is the WebSocket itself.

Run: python -m server.bench.floor --port PORT --samples FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from collections import defaultdict
from pathlib import Path

from websockets.asyncio.server import ServerConnection, broadcast, serve


async def main(port: int, frames: list[str]) -> None:
    rooms: dict[str, set[ServerConnection]] = defaultdict(set)

    async def handler(ws: ServerConnection) -> None:
        room: str | None = None
        try:
            async for message in ws:
                data = json.loads(message)
                if data["type"] == "hello":
                    room = str(data["room"])
                    rooms[room].add(ws)
                    await ws.send(json.dumps({"type": "welcome", "room": room}))
                elif data["type"] == "command":
                    members = rooms[str(data["room"])]
                    for frame in frames:
                        broadcast(members, frame)
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
    args = parser.parse_args()
    asyncio.run(main(args.port, json.loads(args.samples.read_text())))
