"""*relay cost*: what relaying a table costs each process, measured apart.

Three processes on one Redis. Every table is hosted by the first (its GM connects there first); *relayed*, the
table's other connections are two more on the host and two on each of the other processes, which relay the host's
frames to them; *pinned*, all seven are on the host, and the others hold nothing of it. Each process's CPU is read
apart, a command: the host's and each relay's. Closed loop (the host busy) and paced at ``QUIET`` commands a second
(each command alone, waking every process that holds viewers of its table). Both layouts run at once, each with
tables of its own, measured in turn round after round.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from server.bench import drive
from server.bench.agon import create_contests, target
from server.bench.procs import SECRET, Proc, agon_serve, cpu_seconds, redis_server
from server.bench.report import Table, median, ratio

QUIET = 200.0
"""Commands a second of the paced runs: few enough that each command is handled alone."""

LAYOUTS = {"relayed": (0, 0, 0, 1, 1, 2, 2), "pinned": (0, 0, 0, 0, 0, 0, 0)}
"""Each layout's process for each member of a table (``server.bench.drive.ROOM``: the GM first)."""


@dataclass(frozen=True)
class Costs:
    """One run's figures: commands a second, and each process's CPU ms a command (the host first)."""

    commands_per_s: float
    cpu_ms: tuple[float, ...]


async def _measure(
    placed: drive.Target, rooms: list[drive.Room], servers: Sequence[Proc], seconds: float, rate: float | None
) -> Costs:
    drive.reset(rooms)
    sent = sum(r.commands for r in rooms)
    before = [cpu_seconds(s.pid) for s in servers]
    _, elapsed = await drive.load(placed, rooms, seconds, rate)
    commands = max(1, sum(r.commands for r in rooms) - sent)
    spent = [cpu_seconds(s.pid) - b for s, b in zip(servers, before, strict=True)]
    return Costs(commands / elapsed, tuple(1000 * cpu / commands for cpu in spent))


async def run(work: Path, contests: int, seconds: float, rounds: int, quiet: float = QUIET) -> Table:
    table = Table(
        f"relay cost — {contests} tables × 7 connections hosted by one of 3 processes, {seconds:g} s per run, "
        f"medians of {rounds} interleaved rounds",
        [
            "layout",
            "load",
            "commands/s",
            "host CPU ms/command",
            "each relay's CPU ms/command",
            "CPU ms/command in all",
            "in all × pinned",
        ],
    )
    runs: dict[tuple[str, str], list[Costs]] = {}
    with redis_server(work / "redis") as url:
        servers = [agon_serve(url) for _ in range(3)]
        try:
            async with contextlib.AsyncExitStack() as stack:
                setups: list[tuple[str, drive.Target, list[drive.Room]]] = []
                for layout, places in LAYOUTS.items():
                    names = [f"relay-{layout}-{i}" for i in range(contests)]
                    await create_contests(url, names)
                    urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
                    placed = replace(target(urls, names, SECRET, [s.pid for s in servers]), places=places)
                    rooms, tasks = await drive.open_rooms(placed, contests)
                    stack.push_async_callback(drive.close_rooms, rooms, tasks)
                    await drive.closed_loop(placed, rooms, min(0.5, seconds))  # warm up
                    await drive.settle(rooms)
                    setups.append((layout, placed, rooms))
                for _ in range(rounds):
                    for layout, placed, rooms in setups:
                        for load, rate in (("closed", None), (f"paced {quiet:g}/s", quiet)):
                            costs = await _measure(placed, rooms, servers, seconds, rate)
                            runs.setdefault((layout, load), []).append(costs)
        finally:
            for server in servers:
                server.stop()
    figures = {
        key: (
            median([c.commands_per_s for c in costs]),
            median([c.cpu_ms[0] for c in costs]),  # the host's
            median([statistics.fmean(c.cpu_ms[1:]) for c in costs]),  # a relay's
            median([sum(c.cpu_ms) for c in costs]),
        )
        for key, costs in runs.items()
    }
    for (layout, load), (commands, host, relay, total) in figures.items():
        table.add(layout, load, commands, host, relay, total, ratio(total, figures["pinned", load][3]))
    table.notes.append(
        "Relayed: a table's GM and two more of its connections on the host, two on each other process (which "
        "relay); pinned: all seven on the host, the other processes idle (what they cost doing nothing). CPU: each "
        "process's user + system time over the run, a command."
    )
    return table
