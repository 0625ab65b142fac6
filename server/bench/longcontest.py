"""*long contest*: what a contest's length costs — fold rate, cold load, a fresh spectator's welcome and
the live command latency, at 10,000 and 100,000 events (next to a 100-event contest in the same server)."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path

import msgspec

from protocol.codec import decode
from protocol.events import Command, Envelope
from server.bench import drive
from server.bench.agon import GM, adjust, request, target
from server.bench.procs import SECRET, agon_serve, cpu_seconds
from server.bench.report import Table, median, percentile, ratio
from server.engine.contest import fold
from server.service import ContestService
from server.store import open_store
from server.store.memory import MemoryStore

CHUNK = 2000  # records per append when copying a generated contest into the store
SHORT = 100  # events of the contest the latency is compared with


async def build(store_spec: str, name: str, events: int) -> None:
    """A contest of ``events`` events (GM adjustments), generated in memory and copied into the store,
    with a snapshot at its head."""
    memory = MemoryStore()
    service = ContestService(memory, snapshot_every=0)
    await service.create(GM, request(name), command_id=f"create-{name}")
    n = 0
    _, contest = await service.load(name)
    while contest.version < events:
        n += 1
        result = await service.execute(name, GM, f"g{n}", msgspec.convert(adjust(n), Command))
        _, contest = await service.load(name)
        del result
    records = await memory.read(name)
    store = open_store(store_spec)
    try:
        for start in range(0, len(records), CHUNK):
            await store.append(name, records[start : start + CHUNK], expected_version=start)
        await ContestService(store).save_snapshot(name)
    finally:
        await store.close()


async def _fold_rate(store_spec: str, name: str) -> tuple[float, float]:
    """(events/s of a full fold, ms of a cold load from snapshot + tail)."""
    store = open_store(store_spec)
    try:
        rules, _ = await ContestService(store).load(name)
        envelopes = [decode(r.data, Envelope) for r in await store.read(name)]
        started = time.perf_counter()
        fold(rules, envelopes)
        rate = len(envelopes) / (time.perf_counter() - started)
    finally:
        await store.close()
    del envelopes
    gc.collect()  # else the load pays for the collector walking the events this benchmark just decoded
    store = open_store(store_spec)  # as a process starting: its own connection, nothing read yet
    try:
        started = time.perf_counter()
        await ContestService(store).load(name)
        return rate, 1000 * (time.perf_counter() - started)
    finally:
        await store.close()


async def _welcome_ms(url: str, hello: bytes) -> float:
    from websockets.asyncio.client import connect

    started = time.perf_counter()
    async with connect(url, compression=None, ping_interval=None, max_size=2**24) as ws:
        await ws.send(hello.decode(), text=True)
        while '"welcome"' not in str(await ws.recv()):
            pass
        return 1000 * (time.perf_counter() - started)


async def _latency_ms(agon: drive.Target, rooms_at: int, commands: int) -> tuple[float, float]:
    """(median ms from a command to its last patch, server CPU ms per command): one command at a time, so
    the CPU also counts the work a command leaves behind (a snapshot every 50 events)."""
    rooms, tasks = await drive.open_rooms(agon, rooms_at)
    try:
        room = rooms[-1]
        cpu_before = sum(cpu_seconds(pid) for pid in agon.pids)
        for _ in range(commands):
            ack = await drive.send_command(agon, room)
            async with asyncio.timeout(30):
                await ack
            await drive.settle([room])
        cpu_ms = 1000 * (sum(cpu_seconds(pid) for pid in agon.pids) - cpu_before) / commands
        return 1000 * percentile([s for _, s in room.latencies[2:]], 0.5), cpu_ms
    finally:
        await drive.close_rooms(rooms, tasks)


async def run(work: Path, lengths: list[int], rounds: int) -> Table:
    table = Table(
        f"long contest — medians of {rounds} rounds (sqlite, snapshot at the head)",
        [
            "events",
            "fold events/s",
            "cold load ms",
            "fresh spectator's welcome ms",
            f"command latency ms at {SHORT} events",
            "command latency ms at length",
            "× short",
            f"server CPU ms/command at {SHORT} events",
            "at length",
        ],
    )
    commands = 10 if lengths[0] < 1000 else 100
    for length in lengths:
        store = f"sqlite:{work / f'long-{length}.sqlite3'}"
        await build(store, "short", SHORT)
        await build(store, "long", length)
        rates: list[float] = []
        loads: list[float] = []
        welcomes: list[float] = []
        short_ms: list[float] = []
        long_ms: list[float] = []
        short_cpu: list[float] = []
        long_cpu: list[float] = []
        for _ in range(rounds):
            rate, load = await _fold_rate(store, "long")
            rates.append(rate)
            loads.append(load)
            server = agon_serve(store)
            try:
                url = f"ws://127.0.0.1:{server.port}/ws"
                agon = target([url], ["short", "long"], SECRET, [server.pid])
                welcomes.append(await _welcome_ms(url, agon.hello(1, 6)))
                for name, ms, cpu in (("short", short_ms, short_cpu), ("long", long_ms, long_cpu)):
                    latency, cpu_ms = await _latency_ms(target([url], [name], SECRET, [server.pid]), 1, commands)
                    ms.append(latency)
                    cpu.append(cpu_ms)
            finally:
                server.stop()
        table.add(
            f"{length:,}",
            median(rates),
            median(loads),
            median(welcomes),
            median(short_ms),
            median(long_ms),
            ratio(median(long_ms), median(short_ms)),
            median(short_cpu),
            median(long_cpu),
        )
    table.notes.append(
        "Fold: every stored event decoded, then folded from nothing. Cold load: a new service on a store just "
        "opened reading the snapshot and the tail (after a garbage collection of what the fold left). Welcome: "
        "a fresh server process, from connecting to the welcome frame. "
        "Latency: median over the run, command sent to the last of 7 connections patched. CPU: the server's, "
        f"over {commands} commands sent one at a time, so it includes the snapshots taken every 50 events."
    )
    return table
