"""`agon bench` runs every scenario end to end (tiny sizes) and prints every table: it cannot rot.

Timings are not asserted (the machine is shared); what is asserted is what a reader of the tables needs:
each scenario's table, with a row per configuration whose figures are numbers, not blanks. The mix plays full
rounds of every ruleset: a command the server refuses, or a view the bench cannot follow, fails the run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TITLES = {
    "table night mix": 16,  # the five rulesets, the mix, the durable floor and the adjust load: closed and paced
    "table night": 2,  # sqlite, one process: closed loop and paced
    "idle crowd": 2,  # two connection counts
    "idle tables": 4,  # sqlite, redis, a redis cluster and the floor
    "relay cost": 4,  # relayed and pinned: closed loop and paced
    "long contest": 2,  # two lengths
    "store": 2,  # sqlite and redis
    "peer": 4,  # the adjust load and the mix: closed loop and paced
}
RULESETS = ("extended", "herowars", "scored", "karbon", "contingency")  # each plays full rounds in the mix


def _tables(text: str) -> dict[str, list[list[str]]]:
    tables: dict[str, list[list[str]]] = {}
    title = ""
    for line in text.splitlines():
        if line.startswith("### "):
            title = line.removeprefix("### ").split(" — ")[0]
            tables[title] = []
        elif line.startswith("| ") and title and not line.startswith("|---"):
            tables[title].append([cell.strip() for cell in line.strip("|").split("|")])
    return {name: rows[1:] for name, rows in tables.items()}  # without the header row


def test_every_scenario_prints_its_table(tmp_path: Path) -> None:
    out = tmp_path / "bench.md"
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "all", "--smoke", "--rounds", "1", "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    printed = _tables(done.stdout)
    assert _tables(out.read_text()) == printed  # --output holds the very tables printed
    assert set(printed) == set(TITLES)
    loads = {row[0] for row in printed["table night mix"]}
    # every ruleset's full rounds, the mix, and the floor made durable on the mix's frames
    assert loads == {*RULESETS, "mix (all five)", "durable floor", "adjust only"}
    for title, rows in printed.items():
        assert len(rows) == TITLES[title], (title, rows)
        for row in rows:
            numbers = [cell for cell in row if re.fullmatch(r"[\d,]+(\.\d+)?", cell)]
            assert len(numbers) >= 2, (title, row)  # figures were measured, not left blank


def test_the_spread_run_compares_each_count_spread_and_pinned_with_one_process() -> None:
    # Runs of a second, not --smoke's 0.3 s: CPU time comes in ticks of 10 ms, and each row's ratio to one
    # process needs a few of them.
    sizes = ["--contests", "2", "--seconds", "1", "--rate", "200", "--rounds", "1"]
    spread = ["--stores", "redis", "--processes", "1,2", "--spread"]
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "bench", "table-night", *sizes, *spread],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _tables(done.stdout)["table night"]
    assert [(row[1], row[2]) for row in rows] == [
        (config, mode) for config in ("1", "2 pinned", "2 spread") for mode in ("closed", "paced")
    ]
    for row in rows:
        # commands/s, CPU a command, p50, p99 and CPU × 1 process: measured for every configuration
        measured = [row[3], row[6], row[9], row[10], row[12]]
        assert all(re.fullmatch(r"[\d,]+\.\d+|[\d,]+", cell) for cell in measured), row
        assert float(row[6]) > 0 and float(row[12]) > 0, row
