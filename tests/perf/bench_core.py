"""Benchmarks of the core: command throughput through the service on each store, fold and snapshot load.

Run: .venv/bin/python -m tests.perf.bench_core [--redis redis://127.0.0.1:6379/0] [--commands 2000]
Not part of the test suite: figures go to the README with the machine they ran on.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path

import msgspec

from protocol.events import CreateContest
from protocol.rulesets import extended as x
from server.engine.contest import fold
from server.rulesets import ruleset
from server.service import ContestService
from server.store import EventStore, open_store
from tests.engine.table import GM, duel


def request(contest: str) -> CreateContest:
    return msgspec.structs.replace(duel(hero_points=0), contest=contest)


async def throughput(store: EventStore, commands: int) -> dict[str, float]:
    contest = f"bench-{uuid.uuid4().hex[:8]}"
    service = ContestService(store, snapshot_every=100)
    await service.create(GM, request(contest))
    latencies: list[float] = []
    started = time.perf_counter()
    for i in range(commands):
        t = time.perf_counter()
        await service.execute(contest, GM, f"c{i}", x.Adjust(contestant="aria", delta=1, reason="bench"))
        latencies.append(time.perf_counter() - t)
    elapsed = time.perf_counter() - started
    latencies.sort()
    events = await service.events(contest)
    rules = ruleset("extended")
    t = time.perf_counter()
    fold(rules, events)
    fold_s = time.perf_counter() - t
    t = time.perf_counter()
    await ContestService(store).load(contest)  # snapshot + tail from the store
    load_s = time.perf_counter() - t
    tracemalloc.start()
    state = fold(rules, events)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del state
    await service.drain()
    return {
        "commands/s": commands / elapsed,
        "p50 ms": latencies[len(latencies) // 2] * 1000,
        "p99 ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "full fold ms": fold_s * 1000,
        "cold load ms": load_s * 1000,
        "fold peak MiB": peak / 2**20,
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--redis", default=None)
    parser.add_argument("--commands", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        specs = ["memory:", f"sqlite:{Path(tmp) / 'bench.sqlite3'}"] + ([args.redis] if args.redis else [])
        for spec in specs:
            store = open_store(spec)
            figures = await throughput(store, args.commands)
            await store.close()
            shown = "  ".join(f"{k} {v:,.1f}" for k, v in figures.items())
            print(f"{spec.split(':')[0]:<7} {args.commands} commands: {shown}")


if __name__ == "__main__":
    asyncio.run(main())
