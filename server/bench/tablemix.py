"""*table night mix*: full rounds of every ruleset, per ruleset and in an even mix, against the floor.

Each load is T contests × 7 connections (a GM, four players, two spectators) on one store and server
configuration: each ruleset alone (``server.bench.rounds``), the five together (the *mix*: T contests, at
least one of each, taken in turn from the rulesets' own), and the GM's AP adjustments alone (the earlier
table-night load). Agon and the floor alternate, load by load, closed loop then paced, ``rounds`` times;
the floor replays the frames Agon sent in the warm-up (``server.bench.recording``). On the mix, the *durable
floor* takes its turn too: the floor committing each command to SQLite before answering it, which is what
durability costs by itself.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from protocol.common import Actor
from server.bench import drive, mix, recording
from server.bench.agon import target
from server.bench.procs import SECRET, Proc, agon_serve, cpu_seconds, floor_serve, redis_server
from server.bench.report import Table, beside, median_of, percentile, ratio
from server.bench.rounds import Round, adjust, rounds
from server.service import ContestService
from server.store import open_store

GM = Actor("gm", "gm")
MIX = "mix"
ADJUST = "adjust"


@dataclass
class Sizes:
    contests: int = 20  # per load
    seconds: float = 5.0
    rate: float = 1000.0  # commands/s in all, paced runs
    rounds: int = 3
    warm_up: float = 2.0  # seconds of closed loop before measuring, recording the floor's frames


@dataclass
class Figures:
    commands_per_s: float
    exchanges_per_s: float
    cpu_ms: float  # server CPU per command
    p50_ms: float
    p99_ms: float


def loads() -> dict[str, Round]:
    """Every load with contests of its own: the rulesets, then the adjust-only load."""
    return {**rounds(), ADJUST: adjust.ROUND}


async def create_contests(store_spec: str, contests: dict[str, Round]) -> None:
    store = open_store(store_spec)
    try:
        service = ContestService(store)
        for name, round in contests.items():
            await service.create(GM, round.request(name), command_id=f"create-{name}")
        await service.drain()
    finally:
        await store.close()


async def measure(tables: Sequence[mix.Table], pids: Sequence[int], seconds: float, rate: float | None) -> Figures:
    for table in tables:
        table.latencies.clear()
    commands = sum(t.commands for t in tables)
    rolls = sum(t.rolls for t in tables)
    cpu = sum(cpu_seconds(pid) for pid in pids)
    started = time.perf_counter()
    await mix.play(tables, seconds, rate)
    await mix.settle(tables)
    elapsed = time.perf_counter() - started
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu
    commands = sum(t.commands for t in tables) - commands
    rolls = sum(t.rolls for t in tables) - rolls
    warm = started + min(0.5, seconds / 5)  # the first moments warm up
    lat = [s for t in tables for at, s in t.latencies if at >= warm]
    return Figures(
        commands_per_s=commands / elapsed,
        exchanges_per_s=rolls / elapsed if rolls else float("nan"),
        cpu_ms=1000 * cpu / max(commands, 1),
        p50_ms=1000 * percentile(lat, 0.5),
        p99_ms=1000 * percentile(lat, 0.99),
    )


def _groups(tables: Sequence[mix.Table], contests: int) -> dict[str, list[mix.Table]]:
    """The tables of each load, and the mix: ``contests`` tables (at least one per ruleset) taken in turn
    from the rulesets' own."""
    groups: dict[str, list[mix.Table]] = {}
    for table in tables:
        groups.setdefault(table.load, []).append(table)
    rulesets = list(rounds())
    groups[MIX] = [groups[rulesets[j % len(rulesets)]][j // len(rulesets)] for j in range(max(contests, len(rulesets)))]
    return groups


def _replays(tables: Sequence[mix.Table], traces: dict[str, recording.Trace]) -> list[tuple[str, mix.Source]]:
    """The floor's tables: one per Agon table, replaying its load's trace from a point of its own."""
    replays: list[tuple[str, mix.Source]] = []
    for table in tables:
        same = [t for t in tables if t.load == table.load]
        offset = same.index(table) * len(traces[table.load]) // len(same)
        replays.append((table.load, recording.Replay(table.load, traces[table.load], offset)))
    return replays


def _floor_hello(room: int, member: int) -> bytes:
    return json.dumps({"type": "hello", "room": room, "member": member}).encode()


Results = dict[str, dict[str, list[Figures]]]
"""Per load, per target and mode ("agon closed", "floor paced", ...): the figures of each round."""


async def _config(work: Path, store: str, processes: int, sizes: Sizes) -> tuple[Results, dict[str, float]]:
    """Agon and the floor, alternating load by load, closed loop then paced, ``rounds`` times; and the bytes
    Agon sent per command of each load (its seven patches, as recorded for the floor)."""
    contests = {f"{load}-{i}": round for load, round in loads().items() for i in range(sizes.contests)}
    await create_contests(store, contests)
    servers = [agon_serve(store) for _ in range(processes)]
    floors: list[Proc] = []
    results: Results = {}
    sent: dict[str, float] = {}
    try:
        urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
        pids = [s.pid for s in servers]
        hello = target(urls, list(contests), SECRET, pids).hello
        sources = [(round.ruleset, mix.Rounds(round, name)) for name, round in contests.items()]
        tables, tasks = await mix.open_tables(urls, hello, sources, secrets.token_hex(4), follows_view=True)
        try:
            mix.record(tables, True)
            await mix.play(tables, sizes.warm_up, None)  # warm up, and record the frames the floor sends
            await mix.settle(tables)
            traces = recording.traces(tables)
            sent = {load: recording.bytes_per_step(trace) for load, trace in traces.items()}
            mix.record(tables, False)
            samples = work / "mix-frames.json"
            recording.write(samples, traces)
            floor = floor_serve(samples)
            floors.append(floor)
            durable = floor_serve(samples, durable=work / "durable-floor.sqlite3")
            floors.append(durable)
            # the durable floor plays the mix, which is made of the rulesets' tables
            mixed = [(load, source) for load, source in _replays(tables, traces) if load != ADJUST]
            ftables, ftasks = await mix.open_tables(
                [f"ws://127.0.0.1:{floor.port}/"], _floor_hello, _replays(tables, traces), "floor", follows_view=False
            )
            dtables, dtasks = await mix.open_tables(
                [f"ws://127.0.0.1:{durable.port}/"], _floor_hello, mixed, "durable", follows_view=False
            )
            try:
                agon_groups, floor_groups = _groups(tables, sizes.contests), _groups(ftables, sizes.contests)
                durable_groups = _groups(dtables, sizes.contests)
                for _ in range(sizes.rounds):
                    for load in [*rounds(), MIX, ADJUST]:
                        for mode, rate in (("closed", None), ("paced", sizes.rate)):
                            figures = results.setdefault(load, {})
                            agon = await measure(agon_groups[load], pids, sizes.seconds, rate)
                            figures.setdefault(f"agon {mode}", []).append(agon)
                            base = await measure(floor_groups[load], [floor.pid], sizes.seconds, rate)
                            figures.setdefault(f"floor {mode}", []).append(base)
                            if load == MIX:
                                kept = await measure(durable_groups[load], [durable.pid], sizes.seconds, rate)
                                figures.setdefault(f"durable {mode}", []).append(kept)
            finally:
                await drive.close_rooms(dtables, dtasks)
                await drive.close_rooms(ftables, ftasks)
        finally:
            await drive.close_rooms(tables, tasks)
    finally:
        for server in [*servers, *floors]:
            server.stop()
    return results, sent


LABELS = {MIX: "mix (all five)", ADJUST: "adjust only"}
DURABLE = "durable floor"
"""The row of the floor made durable (on the mix's frames): what committing each command costs by itself."""


async def run(work: Path, sizes: Sizes, store_kind: str, processes: int) -> Table:
    if store_kind == "sqlite":
        results, sent = await _config(work, f"sqlite:{work / 'mix.sqlite3'}", processes, sizes)
    else:
        with redis_server(work / "redis-mix") as url:
            results, sent = await _config(work, url, processes, sizes)
    table = Table(
        f"table night mix — full rounds with server dice, {sizes.contests} contests × 7 connections per load, "
        f"{store_kind}, {processes} process{'es' if processes > 1 else ''}, {sizes.seconds:g} s per run, paced at "
        f"{sizes.rate:,.0f} commands/s, medians of {sizes.rounds} interleaved rounds",
        [
            "load",
            "mode",
            "commands/s",
            "floor commands/s",
            "× floor",
            "exchanges/s",
            "CPU ms/command",
            "floor CPU ms",
            "CPU × floor",
            "p50 ms",
            "p99 ms",
            "floor p99 ms",
            "p99 × floor",
        ],
    )
    per_exchange: list[str] = []
    against_durable: list[str] = []
    for load, figures in results.items():
        for served in ("agon", "durable"):
            for mode in ("closed", "paced"):
                if f"{served} {mode}" not in figures:
                    continue
                a, f = figures[f"{served} {mode}"], figures[f"floor {mode}"]
                table.add(
                    DURABLE if served == "durable" else LABELS.get(load, load),
                    mode,
                    *beside(a, f, "commands_per_s"),
                    None if served == "durable" else median_of(a, "exchanges_per_s"),
                    *beside(a, f, "cpu_ms"),
                    median_of(a, "p50_ms"),
                    *beside(a, f, "p99_ms"),
                )
                if served == "durable":
                    agon = median_of(figures[f"agon {mode}"], "cpu_ms")
                    against_durable.append(f"{ratio(agon, median_of(a, 'cpu_ms')):.2f}× {mode}")
        closed = figures["agon closed"]
        if load != ADJUST:
            commands = ratio(median_of(closed, "commands_per_s"), median_of(closed, "exchanges_per_s"))
            per_exchange.append(f"{LABELS.get(load, load)} {commands:.1f}")
    table.notes.append(
        "Each contest plays full rounds of its ruleset, every command sent by the connection of the seat whose "
        "move it is; a decided contest is rewound to its start by its GM. Exchanges: the rolls — an exchange "
        "(extended, herowars), a round (scored, karbon), an action (contingency). Commands per exchange (closed "
        f"loop): {', '.join(per_exchange)}. Latency: a command's sending to the last of its table's 7 connections "
        "receiving its patch. CPU: the server processes' user + system time per command. The floor sends each "
        "connection the frame Agon sent it for the same command in the warm-up; bytes per command (the seven "
        f"frames): {', '.join(f'{LABELS.get(load, load)} {size:,.0f}' for load, size in sent.items())}. "
        f"The {DURABLE} commits each command of the mix to SQLite (WAL, synchronous=FULL, group commit) before "
        "sending its frames and ack, as Agon makes a command durable before acking it; its ratios are to the "
        f"floor. Agon's CPU a command on the mix is {' and '.join(against_durable)} the {DURABLE}'s."
    )
    return table


def main_async(work: Path, sizes: Sizes, store_kind: str, processes: int) -> Table:
    return asyncio.run(run(work, sizes, store_kind, processes))
