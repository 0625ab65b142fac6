"""Operating limits of a real `agon serve`: the open-files limit it raises and logs, one warning a second (never a
traceback per accept) when descriptors run out, and a Redis password that never appears on its command line."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from clients.python.client import AgonClient
from tests.conftest import RedisServer
from tests.e2e.conftest import AGON, SECRET, ServerProcess, http_get
from tests.net.duel import duel

FILES = 64
PASSWORD = "s3cret-Redis-pass-0427"


def _environment(**extra: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    environment["AGON_SECRET"] = SECRET
    environment.update(extra)
    return environment


class EnvStoreServer(ServerProcess):
    """`agon serve` with no ``--store``: the store comes from its environment."""

    def command(self) -> list[str]:
        return [AGON, "serve", "--host", "127.0.0.1", "--port", str(self.port)]


@pytest.fixture
def started() -> Iterator[list[ServerProcess]]:
    servers: list[ServerProcess] = []
    try:
        yield servers
    finally:
        for server in servers:
            server.kill()


def _few_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))  # soft and hard: the server cannot lift it


def _flood(port: int, count: int) -> list[socket.socket]:
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", port))
        sockets.append(sock)
    return sockets


def _healthy(server: ServerProcess) -> bool:
    try:
        return http_get(f"{server.http_url}/healthz", timeout=1.0)[0] == 200
    except OSError:
        return False


def test_running_out_of_descriptors_is_one_warning_a_second_with_a_count(
    tmp_path: Path, started: list[ServerProcess]
) -> None:
    server = ServerProcess(f"sqlite:{tmp_path / 'data' / 'a.sqlite3'}", tmp_path, _environment())
    server.preexec = _few_files
    started.append(server)
    server.start()
    assert f"open files limit: {FILES} (hard limit {FILES})" in server.output()

    sockets = _flood(server.port, 3 * FILES)
    try:
        time.sleep(2.6)  # the first failures, then two seconds of retries
        during = server.output()
    finally:
        for sock in sockets:
            sock.close()
    warnings = re.findall(r"out of file descriptors .*?: (\d+) accepts? failed since the last warning", during)
    assert 1 <= len(warnings) <= 4, during
    assert sum(int(count) for count in warnings) > len(warnings)  # later warnings count many failures each
    assert "Traceback" not in during and "socket.accept() out of system resource" not in during

    deadline = time.monotonic() + 10
    while not _healthy(server):  # descriptors free again: served again
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.1)
    assert server.terminate() == 0
    assert "Traceback" not in server.output()


def test_a_raised_limit_is_logged(tmp_path: Path, started: list[ServerProcess]) -> None:
    def lower_soft() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard <= FILES:
        pytest.skip(f"the hard open-files limit here is {hard}")
    server = ServerProcess(f"sqlite:{tmp_path / 'data' / 'a.sqlite3'}", tmp_path, _environment())
    server.preexec = lower_soft
    started.append(server)
    server.start()
    assert server.process is not None
    assert re.search(rf"open files limit: \d+ \(raised from {FILES};", server.output()), server.output()
    limits = Path(f"/proc/{server.process.pid}/limits").read_text()
    soft = int(re.search(r"Max open files\s+(\d+)", limits).group(1))  # type: ignore[union-attr]
    assert soft > FILES


@pytest.fixture
def locked_redis(private_redis: RedisServer) -> RedisServer:
    """A redis-server of its own that asks for a password (set once it runs, so not on its command line)."""
    redis.Redis(host="127.0.0.1", port=private_redis.port).config_set("requirepass", PASSWORD)
    return private_redis


async def test_the_store_url_comes_from_a_file_and_no_command_line_shows_the_password(
    tmp_path: Path, locked_redis: RedisServer, started: list[ServerProcess]
) -> None:
    secret = tmp_path / "store-url"
    secret.write_text(f"redis://:{PASSWORD}@127.0.0.1:{locked_redis.port}/0\n")
    secret.chmod(0o600)
    environment = _environment(AGON_STORE_FILE=str(secret), AGON_DATA=str(tmp_path / "data"))
    server = EnvStoreServer("", tmp_path, environment)
    started.append(server)
    server.start()
    assert server.process is not None
    assert PASSWORD.encode() not in Path(f"/proc/{server.process.pid}/cmdline").read_bytes()

    gm = await AgonClient.connect(server.ws_url)
    try:
        created = await gm.create(duel())
    finally:
        await gm.close()
    stored = redis.Redis(host="127.0.0.1", port=locked_redis.port, password=PASSWORD).keys(f"*{created.contest}*")
    assert stored, "the contest is in the password-protected Redis"

    listed = subprocess.run(
        [AGON, "admin", "list"], env=environment, capture_output=True, text=True, timeout=30, check=False
    )
    assert listed.returncode == 0 and created.contest in listed.stdout, listed.stderr
    assert PASSWORD not in server.output() + listed.stdout + listed.stderr
    assert f"store redis://127.0.0.1:{locked_redis.port}/0" in server.output()


@pytest.mark.parametrize(
    ("content", "said"),
    [(None, "AGON_STORE_FILE={file}: no such file"), ("\n", "AGON_STORE_FILE={file}: its first line is empty")],
)
def test_a_missing_or_empty_store_file_is_one_line_and_exit_2(tmp_path: Path, content: str | None, said: str) -> None:
    file = tmp_path / "store-url"
    if content is not None:
        file.write_text(content)
    done = subprocess.run(
        [AGON, "serve", "--port", "0"],
        env=_environment(AGON_STORE_FILE=str(file), AGON_DATA=str(tmp_path / "data")),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agon serve: " + said.format(file=file)), done.stderr
    assert "Traceback" not in done.stderr


def test_store_wins_over_the_environment(tmp_path: Path) -> None:
    done = subprocess.run(
        [AGON, "admin", "list", "--store", "memory:"],
        env=_environment(AGON_STORE_FILE=str(tmp_path / "missing")),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
