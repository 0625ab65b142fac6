"""The deploy files as their own tools read them: hadolint lints the Dockerfile, a real compose
implementation (Debian's docker-compose) validates docker-compose.yml — no Docker engine needed — and
`deploy/serve` is run by bash against a stand-in `.venv` (the real install is tests/e2e/test_serve_for_people.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HADOLINT = Path(sys.executable).with_name("hadolint")
ENV = {"AGON_SECRET": "0123456789abcdef0123456789abcdef", "AGON_HOST": "play.example.org"}


def compose(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("docker-compose is not installed: tests/run installs the distribution's package", pytrace=False)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    return subprocess.run(
        [binary, "-f", str(ROOT / "docker-compose.yml"), *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
        cwd=ROOT,
        timeout=60,
    )


def test_the_dockerfile_passes_hadolint() -> None:
    linted = subprocess.run([str(HADOLINT), str(ROOT / "deploy" / "Dockerfile")], capture_output=True, text=True)
    assert linted.returncode == 0, linted.stdout + linted.stderr


def test_the_dockerfile_runs_unprivileged_and_checks_readyz() -> None:
    lines = (ROOT / "deploy" / "Dockerfile").read_text().splitlines()
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    at = next(i for i, line in enumerate(lines) if line.startswith("HEALTHCHECK"))
    assert "/readyz" in " ".join(lines[at : at + 2])


def test_the_compose_file_is_valid_with_redis_two_replicas_and_the_proxy() -> None:
    checked = compose("config", "--quiet", env=ENV)
    assert checked.returncode == 0, checked.stderr
    services = compose("config", "--services", env=ENV)
    assert services.returncode == 0, services.stderr
    names = set(services.stdout.split())
    assert {"redis", "proxy"} <= names
    assert len([n for n in names if n.startswith("agon")]) >= 2
    volumes = compose("config", "--volumes", env=ENV)
    assert "redis-data" in volumes.stdout.split()
    resolved = compose("config", env=ENV).stdout
    assert "./deploy/redis.conf" not in resolved  # paths resolved: the files exist where the file says
    for mounted in ("deploy/redis.conf", "deploy/nginx.conf"):
        assert str(ROOT / mounted) in resolved
        assert (ROOT / mounted).is_file()


@pytest.mark.parametrize("missing", ["AGON_SECRET", "AGON_HOST"])
def test_compose_refuses_to_start_without_the_secret_or_the_host_name(missing: str) -> None:
    checked = compose("config", "--quiet", env={k: v for k, v in ENV.items() if k != missing})
    assert checked.returncode != 0
    assert f"set {missing}" in checked.stderr


def installed_project(tmp_path: Path) -> Path:
    """A copy of deploy/serve in a project whose .venv is in place: its `agon` prints what it was given."""
    project = tmp_path / "agon"
    (project / "deploy").mkdir(parents=True)
    shutil.copy2(ROOT / "deploy" / "serve", project / "deploy" / "serve")
    (project / "protocol").mkdir()
    for name in ("pyproject.toml", "protocol/patch.py"):
        (project / name).write_text("")
    bin_dir = project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text("#!/bin/sh\nexit 0\n")  # pip answers: the first run was not interrupted
    (bin_dir / "agon").write_text('#!/bin/sh\necho "agon $*"\necho "AGON_DATA=$AGON_DATA"\necho "cwd=$PWD"\n')
    for name in ("python", "agon"):
        (bin_dir / name).chmod(0o755)
    (project / ".venv" / ".agon-installed").touch()
    return project


def deploy_serve(project: Path, *args: str, cwd: Path, data: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    if data is not None:
        env["AGON_DATA"] = data
    return subprocess.run(
        [str(project / "deploy" / "serve"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_deploy_serve_tells_how_the_command_line_finds_the_same_store(tmp_path: Path) -> None:
    project = installed_project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = deploy_serve(project, "--port", "9000", cwd=elsewhere)
    assert ran.returncode == 0, ran.stderr
    data = project / "agon-data"
    assert f"export AGON_DATA={data}" in ran.stderr and f"{project}/.venv/bin/agon" in ran.stderr
    assert ran.stdout.splitlines() == ["agon serve --create --port 9000", f"AGON_DATA={data}", f"cwd={elsewhere}"]

    named = deploy_serve(project, "--store", "sqlite:my.sqlite3", cwd=elsewhere)  # read from the caller's folder
    assert named.stdout.splitlines()[0] == "agon serve --store sqlite:my.sqlite3"  # no --create for a named store
    assert named.stdout.splitlines()[2] == f"cwd={elsewhere}"


def test_deploy_serve_reads_a_relative_agon_data_from_the_folder_it_is_run_in(tmp_path: Path) -> None:
    project = installed_project(tmp_path)
    ran = deploy_serve(project, cwd=tmp_path, data="mine")
    assert ran.returncode == 0, ran.stderr
    assert f"AGON_DATA={tmp_path / 'mine'}" in ran.stdout.splitlines()
    assert f"export AGON_DATA={tmp_path / 'mine'}" in ran.stderr


def service_blocks(resolved: str) -> dict[str, str]:
    """Each service's part of `docker-compose config` output (its lines below `  NAME:` under `services:`)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    inside = False
    for line in resolved.splitlines():
        if not line.startswith(" "):
            inside, current = line == "services:", None
        elif inside and line.startswith("  ") and not line.startswith("   "):
            current = blocks.setdefault(line.strip().rstrip(":"), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines) for name, lines in blocks.items()}


def test_the_cluster_profile_is_six_redis_nodes_joined_once_with_replicas_and_the_proxy() -> None:
    checked = compose("--profile", "cluster", "config", "--quiet", env=ENV)
    assert checked.returncode == 0, checked.stderr
    resolved = compose("--profile", "cluster", "config", env=ENV).stdout
    services = service_blocks(resolved)
    clustered = {name for name, block in services.items() if "profiles:\n    - cluster" in block}
    assert {"redis", "agon-1", "agon-2", "proxy"}.isdisjoint(clustered)  # `docker compose up` starts no cluster

    nodes = sorted(name for name in clustered if name.startswith("redis-node-"))
    assert len(nodes) == 6
    addresses = []
    for node in nodes:
        block = services[node]
        assert f"{ROOT / 'deploy/redis.conf'}:/usr/local/etc/redis/redis.conf:ro" in block
        assert f"{ROOT / 'deploy/redis-cluster.conf'}:/usr/local/etc/redis/redis-cluster.conf:ro" in block
        assert "- --include\n    - /usr/local/etc/redis/redis-cluster.conf" in block
        assert f"- {node}:/data" in block  # a volume of its own: nodes.conf and the AOF survive a restart
        addresses.append(block.split("ipv4_address: ")[1].split()[0])
    assert len(set(addresses)) == 6

    create = " ".join(services["redis-cluster-create"].split())
    assert "redis-cli --cluster create " + " ".join(f"{a}:6379" for a in addresses) in create
    assert "--cluster-replicas 1 --cluster-yes" in create and 'restart: "no"' in create
    assert all(f"{node}: condition: service_healthy" in create for node in nodes)

    subnet = resolved.split("agon-cluster:\n    ipam:\n      config:\n      - subnet: ")[1].split()[0]
    upstream = re.findall(r"^\s*server (\S+):8765", (ROOT / "deploy/nginx.conf").read_text(), re.MULTILINE)
    replicas = [name for name in clustered if name.startswith("agon-")]
    aliases = set()
    for replica in replicas:
        block = services[replica]
        url = block.split("- --store\n    - ")[1].split()[0]
        assert url.startswith("redis-cluster://") and all(f"{a}:6379" in url[16:].split(",") for a in addresses[:3])
        assert f"AGON_TRUSTED_PROXIES: {subnet}" in block  # the cluster proxy's network: forwarded addresses believed
        assert "redis-cluster-create:\n        condition: service_completed_successfully" in block
        aliases.update(re.findall(r"aliases:\n\s+- (\S+)", block))
    assert len(replicas) >= 2 and set(upstream) == aliases  # deploy/nginx.conf reaches exactly these replicas
    proxy = services["proxy-cluster"]
    assert "agon-cluster: null" in proxy and f"{ROOT / 'deploy/nginx.conf'}:/etc/nginx/nginx.conf:ro" in proxy


CLUSTER_SETTINGS = ("cluster-enabled", "cluster-require-full-coverage", "cluster-port", "cluster-node-timeout")


def test_a_redis_node_reads_the_cluster_settings_the_guide_explains(tmp_path: Path) -> None:
    sock = tmp_path / "redis.sock"  # no TCP port: nothing else on the machine can answer in its place
    config = [str(ROOT / "deploy/redis.conf"), "--include", str(ROOT / "deploy/redis-cluster.conf")]
    node = subprocess.Popen(
        ["redis-server", *config, "--port", "0", "--unixsocket", str(sock), "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        settings: dict[str, str] = {}
        for _ in range(200):  # a loaded machine can take seconds to start it
            asked = subprocess.run(
                ["redis-cli", "-s", str(sock), "config", "get", *CLUSTER_SETTINGS], capture_output=True, text=True
            )
            words = asked.stdout.split()
            if asked.returncode == 0 and len(words) == 2 * len(CLUSTER_SETTINGS):
                settings = dict(zip(words[::2], words[1::2], strict=True))
                break
            time.sleep(0.1)
    finally:
        node.terminate()
        node.wait(timeout=10)
    assert settings["cluster-enabled"] == "yes" and settings["cluster-require-full-coverage"] == "no"
    assert settings["cluster-port"] == "0"  # the bus on port + 10000, as docs/deploy.md tells to open
    guide = (ROOT / "docs/deploy.md").read_text()
    timeout = int(settings["cluster-node-timeout"])
    assert f"cluster-node-timeout {timeout}" in guide and f"{timeout // 1000} s" in guide
