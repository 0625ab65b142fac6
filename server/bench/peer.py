"""*peer*: boardgame.io 0.50.2 (npm) serving equivalent games, driven with the same shape as *table night*
(rooms of a GM, four players and two spectators; closed loop and paced), in rounds interleaved with Agon
(sqlite, one process): the GM's AP adjustments (a minimal bidding game), and the table-night mix, where each
room plays the round of one of Agon's rulesets as a script of the same number of moves, each by its seat
(``peer_game.js``, *Rounds*; ``server.bench.rounds``: each round's ``peer``).

The peer is installed by the benchmark itself into a cache folder (``$XDG_CACHE_HOME/agon/bench-peer``,
else ``~/.cache/agon/bench-peer``) with npm; Node.js 18 or later is needed.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

from server.bench import drive, mix, tablemix
from server.bench.agon import create_contests, target
from server.bench.mix import SEAT_MEMBER
from server.bench.procs import SECRET, BenchError, Proc, agon_serve, free_port
from server.bench.report import Table, beside, median_of
from server.bench.rounds import rounds as ruleset_rounds
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


def scripts() -> list[list[tuple[int, str]]]:
    """Each ruleset's round as boardgame.io plays it: (seat index, move kind), seat 0 the GM."""
    return [[(SEAT_MEMBER[seat], kind) for seat, kind in r.peer] for r in ruleset_rounds().values()]


def _peer_round(
    folder: Path, contests: int, seconds: float, rate: float, script: Path | None = None
) -> dict[str, Figures]:
    port = free_port()
    env = {**os.environ, "NODE_ENV": "production"}
    node = shutil.which("node") or "node"
    server = Proc([node, str(folder / "peer_server.js"), str(port)], port, "boardgame.io", env)
    try:
        load = [str(script)] if script is not None else []
        driver = [node, str(folder / "peer_driver.js"), str(port), str(server.pid), str(contests), str(seconds)]
        done = subprocess.run(
            [*driver, str(rate), *load],
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
    return {
        mode: Figures(**{k: float("nan") if v is None else v for k, v in f.items() if k != "exchanges_per_s"})
        for mode, f in figures.items()
    }


async def _run(work: Path, contests: int, seconds: float, rate: float, rounds: int) -> Table:
    folder = install()
    store = f"sqlite:{work / 'peer.sqlite3'}"
    names = [f"peer-{i}" for i in range(contests)]
    await create_contests(store, names)
    rulesets = list(ruleset_rounds().values())
    tables_count = max(contests, len(rulesets))  # the mix: at least one room per ruleset
    played = {f"peer-{r.ruleset}-{j}": r for j in range(tables_count) for r in [rulesets[j % len(rulesets)]]}
    await tablemix.create_contests(store, played)
    script = work / "peer-scripts.json"
    script.write_text(json.dumps(scripts()))
    server = agon_serve(store)
    agon_figures: dict[str, list[Any]] = {}
    peer_figures: dict[str, list[Any]] = {}
    try:
        url = f"ws://127.0.0.1:{server.port}/ws"
        agon = target([url], names, SECRET, [server.pid])
        rooms, tasks = await drive.open_rooms(agon, contests)
        hello = target([url], list(played), SECRET, [server.pid]).hello
        sources = [(r.ruleset, mix.Rounds(r, name)) for name, r in played.items()]
        tables, table_tasks = await mix.open_tables([url], hello, sources, secrets.token_hex(4), follows_view=True)
        try:
            await drive.closed_loop(agon, rooms, min(0.5, seconds))
            await drive.settle(rooms)
            await mix.play(tables, min(0.5, seconds), None)
            await mix.settle(tables)
            for _ in range(rounds):
                for mode, paced in (("closed", None), ("paced", rate)):
                    agon_figures.setdefault(f"adjust {mode}", []).append(await measure(agon, rooms, seconds, paced))
                    figures = await tablemix.measure(tables, [server.pid], seconds, paced)
                    agon_figures.setdefault(f"mix {mode}", []).append(figures)
                for load, n, path in (("adjust", contests, None), ("mix", tables_count, script)):
                    peer = await asyncio.to_thread(_peer_round, folder, n, seconds, rate, path)
                    for mode, moved in peer.items():
                        peer_figures.setdefault(f"{load} {mode}", []).append(moved)
        finally:
            await drive.close_rooms(tables, table_tasks)
            await drive.close_rooms(rooms, tasks)
    finally:
        server.stop()
    table = Table(
        f"peer — Agon (sqlite, one process) and boardgame.io 0.50.2 (in-memory), {contests} rooms × 7 "
        f"connections ({tables_count} for the mix), {seconds:g} s per run, paced at {rate:,.0f}/s, medians of "
        f"{rounds} interleaved rounds",
        [
            "load",
            "mode",
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

    for load in ("adjust", "mix"):
        for mode in ("closed", "paced"):
            a, p = agon_figures[f"{load} {mode}"], peer_figures[f"{load} {mode}"]
            table.add(
                "adjust only" if load == "adjust" else "mix (all five)",
                mode,
                *beside(a, p, "commands_per_s"),
                median_of(a, "cpu_ms"),
                median_of(p, "cpu_ms"),
                *beside(a, p, "p99_ms"),
            )
    moves = ", ".join(f"{r.ruleset} {len(r.peer)}" for r in rulesets)
    table.notes.append(
        "boardgame.io keeps matches in memory (no fsync); Agon stores every command durably first. "
        "Adjust only: boardgame.io's closed loop sends the next move once the whole room has the last one (it has "
        "no ack). Mix: each room plays one ruleset's rounds, in turn; boardgame.io plays each round as a script of "
        f"as many moves ({moves}): sealed values seen only by their seat and the GM until the last is in, two "
        "d20 rolled by the server, answers, other steps, each move by its seat's client and checked to be that "
        "seat's turn; a room's next move goes once the mover's, the GM's and the next mover's clients have the last "
        "one (boardgame.io refuses a move from a client behind the state; Agon: once it is acknowledged and on the "
        "GM's page). Agon's rounds follow the dice (answers, ties, parting shots, a decided contest rewound), "
        "boardgame.io's script does not, and its state holds what the script needs (under 1 KB: the script, the "
        "seals, the last 20 lines), not a ruleset's view (Agon's GM view: 1.4–5 KB): a faithful equivalent would "
        "write each ruleset again as a boardgame.io game."
    )
    return table


def run(work: Path, contests: int, seconds: float, rounds: int, rate: float = 1000.0) -> Table:
    return asyncio.run(_run(work, contests, seconds, rate, rounds))
