"""*idle tables*: what tables followed but idle cost a server process every second, on each store.

Each table is a contest with one spectator connected and nothing played. A process keeps following it all the
same: its log's tail and its talk's, its listing as a listener, its presence on the board. Measured: the process's
CPU over the run, and on Redis (one server, and a Redis Cluster of three primaries) the stream reads and script calls
it sends a second (``INFO commandstats``) and what they cost Redis (``INFO cpu``), next to the floor holding as many
idle connections (whose CPU is its pings only: a ratio to it would be noise, so the figures are absolute).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from redis.asyncio import Redis

from server.bench.agon import create_contests, target
from server.bench.crowd import open_idle
from server.bench.drive import as_frame
from server.bench.procs import SECRET, Proc, agon_serve, cpu_seconds, floor_serve, redis_cluster, redis_server
from server.bench.report import Table, median

SPECTATOR = 6  # the room's member who is a spectator (``server.bench.drive.ROOM``)


@dataclass(frozen=True)
class Idle:
    """One run's figures: the server's CPU (a share of one core), and Redis's stream reads and script calls a
    second and its own CPU (a share of one core; each None off Redis)."""

    cpu: float
    reads: float | None
    scripts: float | None
    redis_cpu: float | None


async def _calls(nodes: Sequence[Redis]) -> dict[str, float]:
    """The calls of each command so far, and the CPU seconds (``cpu``), of every Redis node (summed)."""
    calls: dict[str, float] = {}
    for node in nodes:
        stats = await node.info("commandstats")
        cpu = await node.info("cpu")
        for name, figures in stats.items():
            calls[name] = calls.get(name, 0) + int(figures["calls"])
        calls["cpu"] = calls.get("cpu", 0.0) + float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    return calls


async def _idle(
    server: Proc, url: str, hellos: list[bytes], seconds: float, settle: float, redis: Sequence[Redis]
) -> Idle:
    """The server's cost while ``hellos`` connections (one a table) stay connected and idle."""
    connections = await open_idle(url, hellos)
    try:
        await asyncio.sleep(settle)  # welcomes, first reads and presence done
        calls = await _calls(redis)
        cpu, started = cpu_seconds(server.pid), time.monotonic()
        await asyncio.sleep(seconds)
        cpu, elapsed = cpu_seconds(server.pid) - cpu, time.monotonic() - started
        after = await _calls(redis)
    finally:
        await asyncio.gather(*(ws.close() for ws in connections), return_exceptions=True)

    def rate(name: str) -> float | None:
        return (after.get(name, 0) - calls.get(name, 0)) / elapsed if redis else None

    return Idle(cpu / elapsed, rate("cmdstat_xrange"), rate("cmdstat_evalsha"), rate("cpu"))


async def _resting(nodes: Sequence[Redis], seconds: float) -> float:
    """What the Redis ``nodes`` spend by themselves, no server connected (their timers; a cluster's gossip): their
    CPU seconds a second over ``seconds``."""
    before, started = await _calls(nodes), time.monotonic()
    await asyncio.sleep(seconds)
    after = await _calls(nodes)
    return (after["cpu"] - before["cpu"]) / (time.monotonic() - started)


async def run(work: Path, counts: list[int], seconds: float, rounds: int) -> Table:
    table = Table(
        f"idle tables — a spectator at each table, nothing played, {seconds:g} s a run, medians of {rounds} rounds",
        [
            "store",
            "tables",
            "server CPU % of a core",
            "CPU µs a second a table",
            "stream reads/s",
            "script calls/s",
            "Redis CPU µs a second a table",
        ],
    )
    settle = min(3.0, seconds)
    samples = work / "floor-frames.json"
    samples.write_text("[]")
    with redis_server(work / "redis") as redis_url, redis_cluster(work / "cluster") as ports:
        redis = [Redis.from_url(redis_url)]
        cluster = [Redis(host="127.0.0.1", port=port) for port in ports]
        cluster_url = "redis-cluster://" + ",".join(f"127.0.0.1:{port}" for port in ports)
        try:
            for count in counts:
                names = [f"idle-{count}-{i}" for i in range(count)]
                stores = {
                    "sqlite": f"sqlite:{work / f'idle-{count}.sqlite3'}",
                    "redis": redis_url,
                    "redis-cluster": cluster_url,
                }
                for spec in stores.values():
                    await create_contests(spec, names)
                hellos = [target(["unused"], names, SECRET, []).hello(i, SPECTATOR) for i in range(count)]
                floor_hellos = [as_frame({"type": "hello", "room": i}) for i in range(count)]
                runs: dict[str, Callable[[], Awaitable[Idle]]] = {
                    "sqlite": functools.partial(_agon, stores["sqlite"], hellos, seconds, settle, []),
                    "redis": functools.partial(_agon, redis_url, hellos, seconds, settle, redis),
                    "redis-cluster": functools.partial(_agon, cluster_url, hellos, seconds, settle, cluster),
                    "floor": functools.partial(_floor, samples, floor_hellos, seconds, settle),
                }
                figures: dict[str, list[Idle]] = {name: [] for name in runs}
                rests: dict[str, list[float]] = {"redis": [], "redis-cluster": []}
                for _ in range(rounds):
                    resting = await asyncio.gather(_resting(redis, seconds), _resting(cluster, seconds))
                    for name, rest in zip(rests, resting, strict=True):
                        rests[name].append(rest)
                    for name, measure in runs.items():  # interleaved
                        figures[name].append(await measure())
                for name, idle in figures.items():
                    cpu = median([f.cpu for f in idle])
                    redis_cpu = _median([f.redis_cpu for f in idle])
                    if redis_cpu is not None:
                        redis_cpu = max(0.0, redis_cpu - median(rests[name]))
                    table.add(
                        name,
                        str(count),
                        100 * cpu,
                        1e6 * cpu / count,
                        _median([f.reads for f in idle]),
                        _median([f.scripts for f in idle]),
                        None if redis_cpu is None else 1e6 * redis_cpu / count,
                    )
        finally:
            for node in [*redis, *cluster]:
                await node.aclose()
    table.notes.append(
        "Each server is fresh for each run. Redis: stream reads are the tails' (XRANGE), script calls their "
        "listings and the presence board's heartbeats (EVALSHA); on the cluster (3 primaries, no replicas) "
        "summed over its nodes, as is Redis's CPU. Redis's CPU is what it spends beyond its own at rest, measured "
        "each round with no server connected (its timers, and a cluster's gossip between its nodes)."
    )
    return table


def _median(values: list[float | None]) -> float | None:
    """The median of a Redis figure over the rounds (None off Redis)."""
    measured = [value for value in values if value is not None]
    return median(measured) if measured else None


async def _agon(store: str, hellos: list[bytes], seconds: float, settle: float, redis: Sequence[Redis]) -> Idle:
    server = agon_serve(store)
    try:
        return await _idle(server, f"ws://127.0.0.1:{server.port}/ws", hellos, seconds, settle, redis)
    finally:
        server.stop()


async def _floor(samples: Path, hellos: list[bytes], seconds: float, settle: float) -> Idle:
    server = floor_serve(samples)
    try:
        return await _idle(server, f"ws://127.0.0.1:{server.port}/", hellos, seconds, settle, [])
    finally:
        server.stop()
