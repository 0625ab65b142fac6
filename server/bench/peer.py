"""*peer*: boardgame.io 0.50.2 (npm) serving an equivalent minimal bidding game, driven with the same
shape as *table night* (rooms of a GM, four players and two spectators; closed loop and paced), in
rounds interleaved with Agon (sqlite, one process).

The peer is installed by the benchmark itself into a cache folder (``$XDG_CACHE_HOME/agon/bench-peer``,
else ``~/.cache/agon/bench-peer``) with npm; Node.js 18 or later is needed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from server.bench import drive
from server.bench.agon import create_contests, target
from server.bench.procs import SECRET, BenchError, Proc, agon_serve, free_port
from server.bench.report import Table, median, ratio
from server.bench.tablenight import Figures, measure

FILES = ("peer_game.js", "peer_server.js", "peer_driver.js")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agon" / "bench-peer"


def install() -> Path:
    """The peer's folder, with boardgame.io installed by npm when it is missing or out of date."""
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    package = resources.files("server.bench").joinpath("peer_package.json").read_text()
    for name in FILES:
        (folder / name).write_text(resources.files("server.bench").joinpath(name).read_text())
    manifest = folder / "package.json"
    installed = folder / "node_modules" / "boardgame.io" / "package.json"
    if not installed.exists() or not manifest.exists() or manifest.read_text() != package:
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            raise BenchError("the peer needs Node.js and npm on PATH (e.g. apt-get install nodejs npm)")
        manifest.write_text(package)
        print(f"agon bench: installing boardgame.io 0.50.2 into {folder}", flush=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            manifest.unlink(missing_ok=True)
            raise BenchError(f"npm install in {folder} failed: {done.stderr.strip()[-500:]}")
    return folder


def _peer_round(folder: Path, contests: int, seconds: float, rate: float) -> dict[str, Figures]:
    port = free_port()
    env = {**os.environ, "NODE_ENV": "production"}
    node = shutil.which("node") or "node"
    server = Proc([node, str(folder / "peer_server.js"), str(port)], port, "boardgame.io", env)
    try:
        done = subprocess.run(
            [node, str(folder / "peer_driver.js"), str(port), str(server.pid), str(contests), str(seconds), str(rate)],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120 + 4 * seconds,
        )
    finally:
        server.stop()
    if done.returncode != 0:
        raise BenchError(f"the boardgame.io driver failed: {done.stderr.strip()[-500:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {mode: Figures(**{k: float("nan") if v is None else v for k, v in f.items()}) for mode, f in figures.items()}


async def _run(work: Path, contests: int, seconds: float, rate: float, rounds: int) -> Table:
    folder = install()
    store = f"sqlite:{work / 'peer.sqlite3'}"
    names = [f"peer-{i}" for i in range(contests)]
    await create_contests(store, names)
    server = agon_serve(store)
    agon_figures: dict[str, list[Figures]] = {"closed": [], "paced": []}
    peer_figures: dict[str, list[Figures]] = {"closed": [], "paced": []}
    try:
        agon = target([f"ws://127.0.0.1:{server.port}/ws"], names, SECRET, [server.pid])
        rooms, tasks = await drive.open_rooms(agon, contests)
        try:
            await drive.closed_loop(agon, rooms, min(0.5, seconds))
            await drive.settle(rooms)
            for _ in range(rounds):
                for mode, paced in (("closed", None), ("paced", rate)):
                    agon_figures[mode].append(await measure(agon, rooms, seconds, paced))
                for mode, figures in (await asyncio.to_thread(_peer_round, folder, contests, seconds, rate)).items():
                    peer_figures[mode].append(figures)
        finally:
            await drive.close_rooms(rooms, tasks)
    finally:
        server.stop()
    table = Table(
        f"peer — Agon (sqlite, one process) and boardgame.io 0.50.2 (in-memory), {contests} rooms × 7 "
        f"connections, {seconds:g} s per run, paced at {rate:,.0f}/s, medians of {rounds} interleaved rounds",
        [
            "load",
            "Agon commands/s",
            "boardgame.io moves/s",
            "× boardgame.io",
            "Agon CPU ms",
            "boardgame.io CPU ms",
            "Agon p99 ms",
            "boardgame.io p99 ms",
            "p99 × boardgame.io",
        ],
    )
    for mode in ("closed", "paced"):
        a, p = agon_figures[mode], peer_figures[mode]

        def med(figures: list[Figures], name: str) -> float:
            return median([getattr(f, name) for f in figures])

        table.add(
            mode,
            med(a, "commands_per_s"),
            med(p, "commands_per_s"),
            ratio(med(a, "commands_per_s"), med(p, "commands_per_s")),
            med(a, "cpu_ms"),
            med(p, "cpu_ms"),
            med(a, "p99_ms"),
            med(p, "p99_ms"),
            ratio(med(a, "p99_ms"), med(p, "p99_ms")),
        )
    table.notes.append(
        "boardgame.io keeps matches in memory (no fsync); Agon stores every command durably first. "
        "boardgame.io's closed loop sends the next move once the whole room has the last one (it has no ack)."
    )
    return table


def run(work: Path, contests: int, seconds: float, rounds: int, rate: float = 1000.0) -> Table:
    return asyncio.run(_run(work, contests, seconds, rate, rounds))
