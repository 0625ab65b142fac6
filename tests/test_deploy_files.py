"""The deploy files as their own tools read them: hadolint lints the Dockerfile, a real compose
implementation (Debian's docker-compose) validates docker-compose.yml — no Docker engine needed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


def test_the_dockerfile_runs_unprivileged_and_checks_healthz() -> None:
    lines = (ROOT / "deploy" / "Dockerfile").read_text().splitlines()
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    at = next(i for i, line in enumerate(lines) if line.startswith("HEALTHCHECK"))
    assert "/healthz" in " ".join(lines[at : at + 2])


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
