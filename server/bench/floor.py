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

Run: python -m server.bench.floor --port PORT --samples FILE
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from collections import defaultdict
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast, serve


async def main(port: int, samples: list[str] | dict[str, Any]) -> None:
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
    args = parser.parse_args()
    asyncio.run(main(args.port, json.loads(args.samples.read_text())))
