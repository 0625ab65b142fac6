"""Readiness that sees the store (``GET /readyz``) on real `agon serve` processes and real Redis, and the shipped
Prometheus alert rules and Grafana dashboard, loaded and checked against what a real server exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import RedisClusterServers, RedisServer
from tests.e2e.conftest import ServerFactory, ServerProcess, http_get

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "agon.json"


def readyz(server: ServerProcess) -> tuple[int, dict[str, object]]:
    status, body = http_get(f"{server.http_url}/readyz", timeout=5.0)
    return status, json.loads(body)


def wait_ready(server: ServerProcess, want: int, within: float) -> float:
    """Seconds until /readyz answers ``want`` (fails after ``within``)."""
    start = time.monotonic()
    while True:
        status, body = readyz(server)
        if status == want:
            return time.monotonic() - start
        assert time.monotonic() - start < within, f"/readyz stayed {status} ({body}), expected {want}"
        time.sleep(0.1)


def scrape(server: ServerProcess) -> str:
    status, text = http_get(f"{server.http_url}/metrics")
    assert status == 200
    return text


def exported(text: str) -> set[str]:
    """Every series name a scrape can hold: families, samples, and a histogram's _bucket/_sum/_count."""
    names: set[str] = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            names.add(name)
            if kind == "histogram":
                names |= {name + suffix for suffix in ("_bucket", "_sum", "_count")}
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def test_readyz_on_sqlite_is_200_and_healthz_keeps_its_answer(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server(store=f"sqlite:{tmp_path / 'agon.sqlite3'}")
    assert readyz(server) == (200, {"status": "ready", "shards": {"sqlite": "ok"}})
    status, body = server.health()
    assert status == 200 and body["store"] == "ok"
    assert "agon_ready 1.0" in scrape(server)


def test_readyz_follows_redis_going_away_and_coming_back(
    agon_server: ServerFactory, private_redis: RedisServer
) -> None:
    server = agon_server(store=private_redis.url)
    shard = f"127.0.0.1:{private_redis.port}"
    assert readyz(server) == (200, {"status": "ready", "shards": {shard: "ok"}})
    private_redis.stop()
    assert wait_ready(server, 503, within=5.0) < 5.0
    _, body = readyz(server)
    assert body["status"] == "not_ready" and body["shards"][shard] != "ok"  # type: ignore[index]
    text = scrape(server)
    assert "agon_ready 0.0" in text and f'agon_store_shard_up{{shard="{shard}"}} 0.0' in text
    assert re.search(rf'agon_store_errors_total{{shard="{re.escape(shard)}"}} [1-9]', text), text
    private_redis.start()
    assert wait_ready(server, 200, within=5.0) < 5.0
    assert "agon_ready 1.0" in scrape(server)
    assert "not ready" in server.output() and "ready again" in server.output()


def test_readyz_sees_one_cluster_primary_die_and_its_replica_take_over(
    agon_server: ServerFactory, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cluster = RedisClusterServers(tmp_path_factory.mktemp("readyz-cluster"), masters=3, replicas=1)
    cluster.start()
    try:
        server = agon_server(store=cluster.url)
        status, body = readyz(server)
        assert status == 200 and len(body["shards"]) == 3, body  # type: ignore[arg-type]
        primary = int(next(iter(body["shards"])).rsplit(":", 1)[1])  # type: ignore[call-overload]
        replicas_in_sync(cluster)  # a replica whose first sync is not done yet would never take over
        next(node for node in cluster.nodes if node.port == primary).stop()
        down = wait_ready(server, 503, within=5.0)
        up = wait_ready(server, 200, within=20.0)
        _, after = readyz(server)
        assert f"127.0.0.1:{primary}" not in after["shards"] and len(after["shards"]) == 3, after  # type: ignore[operator, arg-type]
        print(f"/readyz 503 {down:.1f} s after the primary died; 200 again {up:.1f} s later")
    finally:
        cluster.stop()


def replicas_in_sync(cluster: RedisClusterServers, within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    for node in cluster.nodes:
        while True:
            info = subprocess.run(
                ["redis-cli", "-p", str(node.port), "info", "replication"], capture_output=True, text=True, timeout=5
            ).stdout
            if "role:master" in info or "master_link_status:up" in info:
                break
            assert time.monotonic() < deadline, f"replica {node.port} never synced:\n{info}"
            time.sleep(0.1)


def test_alert_rules_load_and_name_only_exported_metrics(agon_server: ServerFactory, tmp_path: Path) -> None:
    text = ALERTS.read_text()
    promtool = shutil.which("promtool")
    assert promtool is not None, "promtool is missing: tests/run installs it (Debian's prometheus package)"
    checked = subprocess.run([promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rules = text.count("- alert: ")
    assert rules >= 5
    for key in ("expr:", "labels:", "annotations:", "summary:", "description:"):
        assert text.count(f" {key}") == rules, key
    server = agon_server(store=f"sqlite:{tmp_path / 'agon.sqlite3'}")
    names = exported(scrape(server))
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    used = set(re.findall(r"\b(?:agon|process)_[a-z_]+", body))
    assert {"agon_ready", "agon_store_errors_total", "agon_commands_total", "process_open_fds"} <= used
    assert used <= names, used - names


def test_the_dashboard_loads_and_graphs_only_exported_metrics(agon_server: ServerFactory, tmp_path: Path) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["title"] and dashboard["panels"]
    server = agon_server(store=f"sqlite:{tmp_path / 'agon.sqlite3'}")
    names = exported(scrape(server))
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(set(ids)) == len(ids)
    for panel in dashboard["panels"]:
        assert panel["title"] and panel["targets"], panel
        for target in panel["targets"]:
            used = set(re.findall(r"\bagon_[a-z_]+", target["expr"]))
            assert used and used <= names, (panel["title"], used - names)
