"""*table night*: T contests × (GM + 4 players + 2 spectators), closed loop and paced, against the floor."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

from server.bench import drive
from server.bench.agon import create_contests, floor_target, target
from server.bench.procs import SECRET, Proc, agon_serve, floor_serve, redis_server
from server.bench.report import Table, beside, median_of, percentile, ratio


@dataclass
class Sizes:
    contests: int = 20
    seconds: float = 5.0
    rate: float = 1000.0  # commands/s in all for the paced runs
    rounds: int = 3
    spread: bool = False  # each contest's 7 connections spread over every process, not pinned to one


@dataclass
class Figures:
    commands_per_s: float
    cpu_ms: float  # server CPU per command
    p50_ms: float
    p99_ms: float


async def measure(target: drive.Target, rooms: list[drive.Room], seconds: float, rate: float | None) -> Figures:
    from server.bench.procs import cpu_seconds

    drive.reset(rooms)
    sent_before = sum(r.commands for r in rooms)
    cpu_before = sum(cpu_seconds(pid) for pid in target.pids)
    started, elapsed = await drive.load(target, rooms, seconds, rate)
    cpu = sum(cpu_seconds(pid) for pid in target.pids) - cpu_before
    commands = sum(r.commands for r in rooms) - sent_before
    lat = drive.latencies(rooms, started + min(0.5, seconds / 5))  # the first moments warm up
    return Figures(
        commands_per_s=commands / elapsed,
        cpu_ms=1000 * cpu / max(commands, 1),
        p50_ms=1000 * percentile(lat, 0.5),
        p99_ms=1000 * percentile(lat, 0.99),
    )


@dataclass(frozen=True)
class Config:
    processes: int
    spread: bool  # each contest's connections over every process, else each contest's on one

    @property
    def label(self) -> str:
        return f"{self.processes} {'spread' if self.spread else 'pinned'}" if self.processes > 1 else "1"


def configs(processes: list[int], spread: bool) -> list[Config]:
    """What a run compares: each process count pinned, and with ``spread`` each count above one spread as well
    (pinned at the same count: what more processes on this machine cost without any relaying)."""
    out: list[Config] = []
    for count in processes:
        out.append(Config(count, False))
        if spread and count > 1:
            out.append(Config(count, True))
    return out


async def _configs(
    work: Path, stores: dict[Config, str], sizes: Sizes, floor: Proc | None
) -> tuple[dict[Config, dict[str, list[Figures]]], Proc]:
    """Every configuration at once, each with contests and servers of its own (``stores``: the store of each),
    measured in turn, round after round, closed loop then paced, each run followed by the floor's: a machine whose
    speed drifts between runs (a shared one does, by up to 2× in minutes) shifts every configuration alike, so the
    ratios between them hold."""
    results: dict[Config, dict[str, list[Figures]]] = {config: {} for config in stores}
    setups: list[tuple[Config, drive.Target, list[drive.Room]]] = []
    async with contextlib.AsyncExitStack() as stack:
        for n, (config, store) in enumerate(stores.items()):
            names = [f"night-{n}-{i}" for i in range(sizes.contests)]
            await create_contests(store, names)
            servers: list[Proc] = []
            stack.callback(_stop, servers)
            for _ in range(config.processes):
                servers.append(agon_serve(store))
            urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
            agon = replace(target(urls, names, SECRET, [s.pid for s in servers]), spread=config.spread)
            rooms, tasks = await drive.open_rooms(agon, sizes.contests)
            stack.push_async_callback(drive.close_rooms, rooms, tasks)
            await drive.closed_loop(agon, rooms, min(0.5, sizes.seconds))  # warm up (and record the frames)
            await drive.settle(rooms)
            setups.append((config, agon, rooms))
        if floor is None:
            samples = work / "floor-frames.json"
            samples.write_text(json.dumps(drive.samples(setups[0][2])))
            floor = floor_serve(samples)
        ftarget = floor_target(f"ws://127.0.0.1:{floor.port}/", floor.pid)
        frooms, ftasks = await drive.open_rooms(ftarget, sizes.contests)
        stack.push_async_callback(drive.close_rooms, frooms, ftasks)
        for _ in range(sizes.rounds):
            for config, agon, rooms in setups:
                figures = results[config]
                for mode, rate in (("closed", None), ("paced", sizes.rate)):
                    figures.setdefault(f"agon {mode}", []).append(await measure(agon, rooms, sizes.seconds, rate))
                    figures.setdefault(f"floor {mode}", []).append(await measure(ftarget, frooms, sizes.seconds, rate))
    return results, floor


def _stop(servers: list[Proc]) -> None:
    for server in servers:
        server.stop()


async def run(work: Path, sizes: Sizes, stores: list[str], processes: list[int]) -> Table:
    table = Table(
        f"table night — {sizes.contests} contests × 7 connections, {sizes.seconds:g} s per run, "
        f"paced at {sizes.rate:,.0f} commands/s, medians of {sizes.rounds} interleaved rounds",
        [
            "store",
            "processes",
            "load",
            "commands/s",
            "floor commands/s",
            "× floor",
            "CPU ms/command",
            "floor CPU ms",
            "CPU × floor",
            "p50 ms",
            "p99 ms",
            "floor p99 ms",
            "CPU × 1 process",
        ],
    )
    one: dict[tuple[str, str], float] = {}  # (store, load) -> CPU per command on one process
    floor: Proc | None = None
    try:
        for store_kind in stores:
            compared = configs(processes, sizes.spread)
            if store_kind == "sqlite":
                specs = {c: f"sqlite:{work / f'night-{c.processes}-{c.spread:d}.sqlite3'}" for c in compared}
                measured, floor = await _configs(work, specs, sizes, floor)
            else:
                with redis_server(work / "redis") as url:
                    measured, floor = await _configs(work, dict.fromkeys(compared, url), sizes, floor)
            for config in compared:
                results = measured[config]
                for mode in ("closed", "paced"):
                    a, f = results[f"agon {mode}"], results[f"floor {mode}"]
                    if config.processes == 1:
                        one[store_kind, mode] = median_of(a, "cpu_ms")
                    alone = one.get((store_kind, mode))
                    table.add(
                        store_kind,
                        config.label if sizes.spread else str(config.processes),
                        mode,
                        *beside(a, f, "commands_per_s"),
                        *beside(a, f, "cpu_ms"),
                        median_of(a, "p50_ms"),
                        median_of(a, "p99_ms"),
                        median_of(f, "p99_ms"),
                        ratio(median_of(a, "cpu_ms"), alone) if alone else None,
                    )
    finally:
        if floor is not None:
            floor.stop()
    table.notes.append(
        "Latency: a command's sending to the last of its room's 7 connections receiving its patch. "
        "CPU: the server processes' user + system time per command. "
        + (
            "Spread: member j of contest i connects to process (i + j) mod N, as a round-robin proxy spreads a "
            "table's connections; pinned: every connection of contest i to process i mod N, as the proxy's contest "
            "affinity does (what more processes cost on this machine, relaying nothing). CPU × 1 process compares "
            "with the same load on one process. A store's configurations run at once, each with contests of its own, "
            "measured in turn round after round."
            if sizes.spread
            else "Pinned: every connection of contest i goes to process i mod N, as the proxy's contest affinity does. "
            "A store's configurations run at once, each with contests of its own, measured in turn round after round."
        )
    )
    return table


def main_async(work: Path, sizes: Sizes, stores: list[str], processes: list[int]) -> Table:
    return asyncio.run(run(work, sizes, stores, processes))
