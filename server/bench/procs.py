"""Processes the benchmark starts and measures: servers on loopback, redis-server, CPU time and RSS."""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

SECRET = "bench-secret-not-for-production-use"  # 32 bytes or more, as agon serve asks
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


class BenchError(Exception):
    """Something the benchmark needs is missing or did not start (printed as one line)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (children inherit it); the limit reached."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard) if hard != resource.RLIM_INFINITY else max(soft, wanted)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE


def wait_port(port: int, process: subprocess.Popen[bytes], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        if process.poll() is not None:
            raise BenchError(f"{what} exited with status {process.returncode} before listening on {port}")
        if time.monotonic() > deadline:
            process.kill()
            raise BenchError(f"{what} did not listen on port {port} within {timeout:.0f}s")
        time.sleep(0.05)


class Proc:
    """A child process listening on ``port`` (killed on ``stop``)."""

    def __init__(self, command: Sequence[str], port: int, what: str, env: dict[str, str] | None = None) -> None:
        self.port = port
        self.what = what
        # Its log goes to a file, never to a pipe nobody reads while it runs: a server that logs a line per
        # command filled the pipe's 64 KiB and then waited for ever in a write to standard error.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the process runs, closed by stop()
        self.process = subprocess.Popen(
            list(command), env=env, stdout=subprocess.DEVNULL, stderr=self.log, start_new_session=True
        )
        try:
            wait_port(port, self.process, what)
        except BenchError as error:
            self.log.seek(0)
            said = self.log.read()[-2000:].decode(errors="replace").strip()
            self.log.close()
            raise BenchError(f"{error}{': ' + said if said else ''}") from None

    @property
    def pid(self) -> int:
        return self.process.pid

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()


def agon_serve(store: str, port: int | None = None, extra_env: dict[str, str] | None = None) -> Proc:
    """``agon serve`` on loopback for ``store``, with the benchmark's secret, no frame-rate limit and no cap on
    connections per address (every benchmark client comes from loopback)."""
    port = port or free_port()
    env = {
        **os.environ,
        "AGON_SECRET": SECRET,
        "AGON_RATE": "1000000",
        "AGON_BURST": "1000000",
        "AGON_SEND_QUEUE": "100000",
        "AGON_MAX_CONNECTIONS_PER_ADDRESS": "0",
        **(extra_env or {}),
    }
    command = [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return Proc([*command, "--store", store, "--create"], port, "agon serve", env)


def floor_serve(samples: Path, port: int | None = None, durable: Path | None = None) -> Proc:
    """The floor (``server.bench.floor``) replaying ``samples``; ``durable``: each command committed to this SQLite
    file before it is answered."""
    port = port or free_port()
    command = [sys.executable, "-m", "server.bench.floor", "--port", str(port), "--samples", str(samples)]
    if durable is not None:
        command += ["--durable", str(durable)]
    return Proc(command, port, "the durable floor" if durable is not None else "the floor server")


def _redis_node(binary: str, workdir: Path, options: Sequence[str] = ()) -> Proc:
    """A redis-server (no persistence) on a free loopback port, in ``workdir``."""
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    basics = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(workdir)]
    return Proc([binary, *basics, *options], port, "redis-server")


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BenchError(f"{name} is not on PATH: install Redis (>= 7) for the Redis figures")
    return found


@contextlib.contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """A throwaway redis-server (no persistence) on a free loopback port; yields its URL."""
    redis = _redis_node(_binary("redis-server"), workdir)
    try:
        yield f"redis://127.0.0.1:{redis.port}/0"
    finally:
        redis.stop()


@contextlib.contextmanager
def redis_cluster(workdir: Path, primaries: int = 3) -> Iterator[list[int]]:
    """A throwaway Redis Cluster of ``primaries`` redis-servers (no replicas, no persistence) on free loopback
    ports, joined with ``redis-cli --cluster create``; yields their ports."""
    binary, cli = _binary("redis-server"), _binary("redis-cli")
    nodes: list[Proc] = []
    try:
        for index in range(primaries):
            # The cluster bus gets a free port of its own (by default it is port + 10000, maybe taken or > 65535).
            options = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
            options += ["--cluster-port", str(free_port()), "--cluster-node-timeout", "1000"]
            nodes.append(_redis_node(binary, workdir / f"node-{index}", options))
        addresses = [f"127.0.0.1:{node.port}" for node in nodes]
        created = subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if created.returncode != 0:
            raise BenchError(f"redis-cli --cluster create failed: {created.stdout.strip()} {created.stderr.strip()}")
        deadline = time.monotonic() + 30
        for node in nodes:
            while not _cluster_ok(cli, node.port):
                if time.monotonic() > deadline:
                    raise BenchError(f"the Redis Cluster on {' '.join(addresses)} did not become ready")
                time.sleep(0.1)
        yield [node.port for node in nodes]
    finally:
        for node in nodes:
            node.stop()


def _cluster_ok(cli: str, port: int) -> bool:
    """Whether the cluster node on ``port`` says every slot is served."""
    info = subprocess.run([cli, "-p", str(port), "cluster", "info"], capture_output=True, text=True, timeout=10)
    return "cluster_state:ok" in info.stdout
