"""What the floor replays: the frames Agon sent for each command of the warm-up, table by table.

During Agon's warm-up every table keeps the commands it sent (from which connection, how long the frame,
whether it rolled) and the patch each of its seven connections received for each. Those make one *trace*
per load (the steps of all its tables, one after the other); the floor sends, for a step, each member the
very frame Agon sent it, so it sends the same number of frames of the same sizes per command, and its
driver sends a command as long as Agon's from the same connection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from server.bench.mix import Step, Table
from server.bench.procs import BenchError

Trace = list[tuple[int, int, bool, list[str]]]
"""Steps of a load: (the member that sent it, its frame's length, whether it rolled, each member's patch)."""


def traces(tables: Sequence[Table]) -> dict[str, Trace]:
    """Each load's trace from the tables that recorded; every connection must have had one patch per
    command (what the latency of the tables counts on)."""
    out: dict[str, Trace] = {}
    for table in tables:
        steps = table.steps or []
        for member in table.members:
            got = member.recorded or []
            if len(got) != len(steps):
                raise BenchError(
                    f"table {table.index} ({table.load}): a connection received {len(got)} patches for "
                    f"{len(steps)} commands: the tables count one patch per connection per command"
                )
        out.setdefault(table.load, []).extend(
            (member, length, rolls, [m.recorded[k] for m in table.members if m.recorded is not None])
            for k, (member, length, rolls) in enumerate(steps)
        )
    return out


def bytes_per_step(trace: Trace) -> float:
    """The bytes a command of the trace sent its table, on average (its seven patches)."""
    return sum(len(frame.encode()) for step in trace for frame in step[3]) / max(len(trace), 1)


def write(path: Path, recorded: dict[str, Trace]) -> None:
    """The floor's samples file: every load's trace, as the frames of each step."""
    samples = {"traces": {load: [step[3] for step in trace] for load, trace in recorded.items()}}
    path.write_text(json.dumps(samples), encoding="utf-8")


@dataclass
class Replay:
    """The floor: the steps of a load's trace in turn, from ``offset`` (tables of a load start apart)."""

    load: str
    trace: Trace
    offset: int = 0

    def next(self, table: Table, n: int, id: str) -> Step:
        k = (self.offset + n - 1) % len(self.trace)
        member, length, rolls, _ = self.trace[k]
        head = json.dumps({"type": "command", "id": id, "room": table.index, "trace": self.load, "step": k})
        pad = max(0, length - len(head) - len(',"pad":""'))
        frame = head[:-1] + f',"pad":"{"x" * pad}"}}' if pad else head
        return Step(member, frame.encode(), rolls)
