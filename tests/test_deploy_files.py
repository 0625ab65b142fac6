"""The deploy files as their own tools read them: hadolint lints the Dockerfile, a real compose
implementation (Debian's docker-compose) validates docker-compose.yml — no Docker engine needed — and
`deploy/serve` is run by bash against a stand-in `.venv` (the real install is tests/e2e/test_serve_for_people.py)."""

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
