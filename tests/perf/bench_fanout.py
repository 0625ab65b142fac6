"""The server CPU of a command and its fan-out, in this process, for the table-night mix's rounds.

Each ruleset's round (``server.bench.rounds``) is played through the service on a memory store, its contest
followed as ``agon serve`` follows it (``tests.costly.Bench``: every seat, an auditor and a spectator), a decided
contest rewound to its start by its GM as the mix does. What is timed is the process's CPU from the service taking
a command to the last follower's frame being queued — no sockets, no store I/O, no clients — so two versions of the
engine and the feeds compare within a few per cent, where the socket benchmark (``agon bench table-night --mix``)
moves by tens. Each ruleset's figure is the best of ``--repeat`` runs (on a busy machine the others only add noise).

Run: .venv/bin/python -m tests.perf.bench_fanout [--commands 600] [--repeat 5] [--by-kind] [ruleset ...]
(``--by-kind``: each command type's share of the commands and of the CPU, in each ruleset's best run.)
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from dataclasses import dataclass

from protocol.codec import to_builtins
from protocol.common import Actor
from protocol.events import Rewind
from server.bench.rounds import Move, Round, decided, rounds
from tests.costly import GM, Bench


@dataclass
class Played:
    """A run's CPU per command (µs), and the CPU seconds of each command by its type."""

    per_command: float
    by_kind: dict[str, list[float]]


async def play(round_: Round, commands: int) -> Played:
    """The CPU of ``commands`` commands of the round (after a warm-up of 100)."""
    bench = await Bench.open(round_.request("bench"))
    await bench.follow()
    origin: int | None = None
    by_kind: dict[str, list[float]] = {}
    for n in range(100 + commands):
        view = to_builtins(await bench.service.view(bench.contest, GM))
        version = int(view["version"])
        if origin is None and n >= round_.origin:
            origin = version
        move = Move("gm", Rewind(to_version=origin or version)) if decided(view) else round_.next_move(view)
        actor = Actor(move.seat, "gm" if move.seat == "gm" else "player")
        if n == 100:
            gc.collect()
        started = time.process_time()
        await bench.do(actor, move.command)
        if n >= 100:
            kind = str(type(move.command).__struct_config__.tag)
            by_kind.setdefault(kind, []).append(time.process_time() - started)
    await bench.leave()
    total = sum(sum(costs) for costs in by_kind.values())
    return Played(total / commands * 1e6, by_kind)


def _kinds(played: Played) -> None:
    """Each command type's share of the commands and of the CPU, the costliest first."""
    commands = sum(len(costs) for costs in played.by_kind.values())
    total = sum(sum(costs) for costs in played.by_kind.values())
    for kind, costs in sorted(played.by_kind.items(), key=lambda item: -sum(item[1])):
        print(
            f"  {kind:30} {100 * len(costs) / commands:5.1f} % of commands {1e6 * statistics.fmean(costs):7.0f} µs each"
            f" {100 * sum(costs) / total:5.1f} % of the CPU"
        )


async def main_async(names: list[str], commands: int, repeat: int, by_kind: bool) -> None:
    every = rounds()
    chosen = [every[name] for name in names] if names else list(every.values())
    results: dict[str, list[Played]] = {r.ruleset: [] for r in chosen}
    for _ in range(repeat):
        for round_ in chosen:
            results[round_.ruleset].append(await play(round_, commands))
    for name, runs in results.items():
        figures = [run.per_command for run in runs]
        print(f"{name:12} {min(figures):8.1f} µs/command (runs: {', '.join(f'{f:.0f}' for f in figures)})")
        if by_kind:
            _kinds(min(runs, key=lambda run: run.per_command))
    best = [min(run.per_command for run in runs) for runs in results.values()]
    print(f"{'mean':12} {statistics.fmean(best):8.1f} µs/command")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*")
    parser.add_argument("--commands", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--by-kind", action="store_true", help="each command type's share of the CPU (best run)")
    args = parser.parse_args()
    asyncio.run(main_async(args.rulesets, args.commands, args.repeat, args.by_kind))


if __name__ == "__main__":
    main()
