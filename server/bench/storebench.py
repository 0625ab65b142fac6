"""*store*: raw appends of one-event batches, one writer and many writers at once, on each backend."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from server.bench.procs import redis_server
from server.bench.report import Table, median
from server.store import open_store
from server.store.port import EventStore, Record

WRITERS = 20
DATA = b'{"payload":"' + b"x" * 400 + b'"}'  # about the size of a stored adjustment


def _record(contest: str, version: int) -> Record:
    return Record(version, f"{contest}-{version}", DATA, f"h{version}", f"h{version - 1}" if version > 1 else "")


async def _writer(store: EventStore, contest: str, appends: int) -> None:
    for version in range(1, appends + 1):
        await store.append(contest, [_record(contest, version)], expected_version=version - 1)


async def _rate(spec: str, writers: int, appends: int, tag: str) -> float:
    store = open_store(spec)
    try:
        await store.ping()
        started = time.perf_counter()
        await asyncio.gather(*(_writer(store, f"{tag}-{w}", appends) for w in range(writers)))
        return writers * appends / (time.perf_counter() - started)
    finally:
        await store.close()


async def run(work: Path, appends: int, rounds: int) -> Table:
    table = Table(
        f"store — appends/s of one-event batches, {appends:,} per writer, medians of {rounds} rounds",
        ["store", "1 writer", f"{WRITERS} writers (one contest each)"],
    )
    with redis_server(work / "redis") as url:

        def sqlite(r: int) -> str:
            return f"sqlite:{work / f'store-{r}.sqlite3'}"

        def redis(r: int) -> str:
            return url

        specs = {"sqlite": sqlite, "redis": redis}
        figures: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in specs}
        for r in range(rounds):
            for name, spec in specs.items():  # interleaved
                one, many = figures[name]
                one.append(await _rate(spec(r), 1, appends, f"one-{r}"))
                many.append(await _rate(spec(r), WRITERS, max(1, appends // WRITERS), f"many-{r}"))
        for name, (one, many) in figures.items():
            table.add(name, median(one), median(many))
    table.notes.append(
        "sqlite: WAL, synchronous=FULL, appends arriving together committed as a group (one fsync). "
        "Redis: no persistence."
    )
    return table
