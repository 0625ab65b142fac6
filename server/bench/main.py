"""``agon bench SCENARIO``: run scenarios and print their tables (markdown)."""

from __future__ import annotations

import argparse
import asyncio
import platform
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from server.bench.report import Table

SCENARIOS = ("table-night", "idle-crowd", "idle-tables", "relay-cost", "long-contest", "store", "peer", "all")


def add_arguments(bench: argparse.ArgumentParser) -> None:
    bench.add_argument("scenario", choices=SCENARIOS)
    bench.add_argument("--smoke", action="store_true", help="tiny sizes: checks that every table comes out")
    bench.add_argument(
        "--mix",
        action="store_true",
        help="table night: full rounds of every ruleset, each alone and mixed, and the adjust load, on the first "
        "of --stores and --processes (all runs it as well as the adjust load's matrix)",
    )
    bench.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are over them)")
    bench.add_argument("--contests", type=int, default=20, help="table night, relay cost and peer: contests at once")
    bench.add_argument("--seconds", type=float, default=5.0, help="table night, relay cost and peer: seconds per run")
    bench.add_argument("--rate", type=float, default=1000.0, help="table night: commands/s of the paced runs")
    bench.add_argument(
        "--stores", default=None, help="table night: sqlite, redis or both (sqlite,redis; with --smoke, sqlite)"
    )
    bench.add_argument(
        "--processes", default=None, help="table night: server processes, e.g. 1,2 (1,2; with --smoke, 1)"
    )
    bench.add_argument(
        "--spread",
        action="store_true",
        help="table night: spread each contest's connections over every process (as round robin does) instead of "
        "pinning a contest to one process (as the proxy's contest affinity does)",
    )
    bench.add_argument("--connections", default="1000,10000", help="idle crowd: connection counts")
    bench.add_argument("--tables", default="300", help="idle tables: table counts")
    bench.add_argument(
        "--idle-seconds",
        type=float,
        default=20.0,
        help="idle tables: seconds per run (whole heartbeats and poll rounds)",
    )
    bench.add_argument("--events", default="10000,100000", help="long contest: contest lengths")
    bench.add_argument("--appends", type=int, default=2000, help="store: appends per writer")
    bench.add_argument("--output", "-o", default=None, help="also write the tables (markdown) to this file")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return (
        f"{platform.system()} {platform.release()}, {os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}"
    )


def run(args: argparse.Namespace) -> int:
    from server.bench import crowd, idletables, longcontest, peer, relaycost, storebench, tablemix, tablenight
    from server.bench.procs import raise_fd_limit

    raise_fd_limit(65536)
    # Stopped from outside (SIGTERM): unwind, so the servers this run started are stopped too.
    signal.signal(signal.SIGTERM, _interrupted)
    chosen = (
        ["table-night-mix", "table-night", "idle-crowd", "idle-tables", "relay-cost", "long-contest", "store", "peer"]
        if args.scenario == "all"
        else ["table-night-mix"]
        if args.scenario == "table-night" and args.mix
        else [args.scenario]
    )
    smoke = args.smoke
    stores = _names(args.stores or ("sqlite" if smoke else "sqlite,redis"))
    processes = _ints(args.processes or ("1" if smoke else "1,2"))
    rounds = max(1, args.rounds)
    out: list[str] = [f"Machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"]
    print(out[0], flush=True)
    with tempfile.TemporaryDirectory(prefix="agon-bench-") as tmp:
        work = Path(tmp)
        steps: dict[str, Callable[[], list[Table]]] = {
            "table-night-mix": lambda: [
                tablemix.main_async(
                    work / "night",
                    tablemix.Sizes(
                        contests=2 if smoke else args.contests,
                        seconds=0.25 if smoke else args.seconds,
                        rate=40 if smoke else args.rate,
                        rounds=rounds,
                        warm_up=0.3 if smoke else min(2.0, args.seconds),
                    ),
                    stores[0],
                    processes[0],
                )
            ],
            "table-night": lambda: [
                tablenight.main_async(
                    work / "night",
                    tablenight.Sizes(
                        contests=2 if smoke else args.contests,
                        seconds=0.3 if smoke else args.seconds,
                        rate=40 if smoke else args.rate,
                        rounds=rounds,
                        spread=args.spread,
                    ),
                    stores,
                    processes,
                )
            ],
            "idle-crowd": lambda: [
                asyncio.run(crowd.run(work / "crowd", [20, 40] if smoke else _ints(args.connections), rounds))
            ],
            "idle-tables": lambda: [
                asyncio.run(
                    idletables.run(
                        work / "idle",
                        [5] if smoke else _ints(args.tables),
                        0.5 if smoke else args.idle_seconds,
                        rounds,
                    )
                )
            ],
            "relay-cost": lambda: [
                asyncio.run(
                    relaycost.run(
                        work / "relay",
                        2 if smoke else args.contests,
                        0.3 if smoke else args.seconds,
                        rounds,
                        40 if smoke else relaycost.QUIET,
                    )
                )
            ],
            "long-contest": lambda: [
                asyncio.run(longcontest.run(work / "long", [200, 400] if smoke else _ints(args.events), rounds))
            ],
            "store": lambda: [asyncio.run(storebench.run(work / "store", 50 if smoke else args.appends, rounds))],
            "peer": lambda: [
                peer.run(
                    work / "peer",
                    contests=2 if smoke else args.contests,
                    seconds=0.5 if smoke else args.seconds,
                    rounds=rounds,
                    rate=40 if smoke else args.rate,
                )
            ],
        }
        for name in chosen:
            for folder in ("night", "crowd", "idle", "relay", "long", "store", "peer"):
                (work / folder).mkdir(parents=True, exist_ok=True)
            for table in steps[name]():
                text = table.markdown()
                out.append(text)
                print(text, flush=True)
    if args.output:
        Path(args.output).write_text("\n".join(out), encoding="utf-8")
    return 0


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _ints(text: str) -> list[int]:
    return [int(part) for part in _names(text)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="agon bench")
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
