"""Real `agon serve` processes on loopback ports, always killed at the end of the test."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

AGON = str(Path(sys.executable).with_name("agon"))
SECRET = "e2e-test-secret-0123456789abcdef"


SERVE = [AGON, "serve", "--create"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_get(url: str, headers: Mapping[str, str] | None = None, timeout: float = 5.0) -> tuple[int, str]:
    """(status, body) of a GET; never raises for an HTTP error status."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode()


class ServerProcess:
    """One `agon serve` subprocess; its output goes to a log file shown when it fails to start."""

    def __init__(self, store: str, workdir: Path, env: Mapping[str, str]) -> None:
        self.store = store
        self.workdir = workdir
        self.env = dict(env)
        self.port = free_port()
        self.log = workdir / f"agon-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.preexec: Callable[[], None] | None = None  # run in the child before agon starts (e.g. setrlimit)

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def command(self) -> list[str]:
        return [*SERVE, "--host", "127.0.0.1", "--port", str(self.port), "--store", self.store]

    def start(self, timeout: float = 20.0) -> ServerProcess:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.workdir,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=self.preexec,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"agon serve exited with {self.process.returncode}:\n{self.output()}", pytrace=False)
            try:
                status, _ = http_get(f"{self.http_url}/healthz", timeout=1.0)
                if status == 200:
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"agon serve did not become healthy:\n{self.output()}", pytrace=False)
            time.sleep(0.05)

    def health(self) -> tuple[int, dict[str, object]]:
        status, body = http_get(f"{self.http_url}/healthz")
        return status, json.loads(body)

    def terminate(self, timeout: float = 20.0) -> int:
        """SIGTERM, then wait: the exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


ServerFactory = Callable[..., ServerProcess]


@pytest.fixture
def agon_server(tmp_path: Path) -> Iterator[ServerFactory]:
    """Start `agon serve` processes: ``agon_server(store=..., env=...)``; all are killed after the test."""
    started: list[ServerProcess] = []

    def start(
        store: str | None = None, env: Mapping[str, str] | None = None, secret: str | None = SECRET
    ) -> ServerProcess:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
        if secret is not None:
            environment["AGON_SECRET"] = secret
        environment.update(env or {})
        server = ServerProcess(store or f"sqlite:{tmp_path / 'data' / 'a.sqlite3'}", tmp_path, environment)
        started.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in started:
            server.kill()
