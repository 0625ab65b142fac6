"""Shared fixtures: a real, throwaway redis-server for every test that needs Redis; and Hypothesis without
time limits (a busy CI machine makes examples slow, not wrong)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Every property test, unless it says otherwise: no deadline per example and no complaint about slow data
# generation, both of which measure the machine rather than the code.
settings.register_profile("agon", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("agon")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int, pid: int) -> bool:
    """Whether the redis-server of process ``pid`` answers on ``port`` (not another one that holds the port)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"INFO server\r\n")
            answer = b""
            while b"process_id:" not in answer or not answer.endswith(b"\r\n"):
                chunk = sock.recv(4096)
                if not chunk:
                    return False
                answer += chunk
            return f"process_id:{pid}\r\n".encode() in answer
    except OSError:
        return False


class RedisServer:
    """A redis-server on a loopback port, in its own directory, with no persistence.

    ``stop()`` and ``start()`` may be called repeatedly (the port stays the same), e.g. to test what
    a store does while Redis is down. Data does not survive a stop.
    """

    def __init__(self, workdir: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not on PATH: install Redis (>= 7) to run these tests", pytrace=False)
        self.binary = binary
        self.workdir = workdir
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.extra: dict[str, str] = {}
        self.config_file: Path | None = None  # a redis.conf read first (its persistence then applies)
        self._started = False  # once started, its port stays the same
        self._logged = 0  # the log's length before the last start

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server; on its first start, on other free ports while one it was given is taken meanwhile
        (another test worker, or an outgoing connection, may take a port between its choice and the bind)."""
        for _ in range(5):
            if self._start():
                self._started = True
                return
            if self._started or "Address already in use" not in self._log_text():
                break
            self.port = _free_port()
            if "--cluster-port" in self.extra:
                self.extra["--cluster-port"] = str(_free_port())
                (self.workdir / "nodes.conf").unlink(missing_ok=True)  # it names the ports it was given
        pytest.fail(f"redis-server on port {self.port} did not start:\n{self._log_text()}", pytrace=False)

    def _log_text(self) -> str:
        """What the server logged since it was last started."""
        log = self.workdir / "redis.log"
        return log.read_bytes()[self._logged :].decode(errors="replace") if log.exists() else ""

    def _start(self) -> bool:
        """Whether the server started (and its own process answers on the port)."""
        if self.process is not None:
            return True
        log = self.workdir / "redis.log"
        self._logged = log.stat().st_size if log.exists() else 0
        options = {
            "--port": str(self.port),
            "--bind": "127.0.0.1",
            "--save": "",
            "--appendonly": "no",
            "--dir": str(self.workdir),
            "--logfile": str(log),
            **self.extra,
        }
        if self.config_file is not None:
            del options["--save"], options["--appendonly"]
        first = [str(self.config_file)] if self.config_file is not None else []
        command = [self.binary, *first, *(part for pair in options.items() for part in pair)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while not _answers(self.port, self.process.pid):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                return False
            time.sleep(0.05)
        return True

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.kill()
        self.process.wait(timeout=10)
        self.process = None


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The session's shared redis-server. Tests share it: use unique contest ids (e.g. uuid4)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """``redis://127.0.0.1:<port>/0`` of the session's shared redis-server."""
    return redis_server.url


@pytest.fixture
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server of this test's own, safe to stop and start (e.g. for availability tests)."""
    server = RedisServer(tmp_path_factory.mktemp("private-redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


class RedisClusterServers:
    """A Redis Cluster of ``masters`` redis-server processes (and ``replicas`` replicas of each) on loopback
    ports, each in its own directory, joined with ``redis-cli --cluster create``. ``url`` names all of its
    nodes. With replicas, a primary that dies is replaced within about a second (``cluster-node-timeout``)."""

    def __init__(self, workdir: Path, masters: int = 3, replicas: int = 0) -> None:
        self.replicas = replicas
        self.nodes = [RedisServer(workdir / f"node-{index}") for index in range(masters * (1 + replicas))]
        for node in self.nodes:
            node.workdir.mkdir(parents=True, exist_ok=True)
            # The cluster bus gets a free port of its own (by default it is port + 10000, maybe taken or > 65535).
            node.extra = {
                "--cluster-enabled": "yes",
                "--cluster-config-file": "nodes.conf",
                "--cluster-port": str(_free_port()),
                "--cluster-node-timeout": "1000",
            }

    @property
    def url(self) -> str:
        return "redis-cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.stop()  # never leave a node running when the cluster did not come up
            raise

    def _start(self) -> None:
        for node in self.nodes:
            node.start()
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.fail("redis-cli is not on PATH: install redis-tools to run the cluster tests", pytrace=False)
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        created = subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if created.returncode != 0:
            self.stop()
            pytest.fail(f"redis-cli --cluster create failed:\n{created.stdout}\n{created.stderr}", pytrace=False)
        deadline = time.monotonic() + 30
        for node in self.nodes:
            while "cluster_state:ok" not in _cluster_info(cli, node.port):
                if time.monotonic() > deadline:
                    self.stop()
                    pytest.fail(f"the cluster on {addresses} did not become ready", pytrace=False)
                time.sleep(0.1)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def _cluster_info(cli: str, port: int) -> str:
    return subprocess.run([cli, "-p", str(port), "cluster", "info"], capture_output=True, text=True, timeout=10).stdout


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterServers]:
    """The session's shared 3-master Redis Cluster. Tests share it: use unique contest ids."""
    cluster = RedisClusterServers(tmp_path_factory.mktemp("redis-cluster"))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(params=["memory", "sqlite", "redis", "redis-cluster"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store spec for each backend: in memory, a fresh sqlite file, the throwaway Redis server, and the
    throwaway 3-master Redis Cluster."""
    if request.param == "memory":
        return "memory:"
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'data' / 'agon.sqlite3'}"
    if request.param == "redis-cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return str(request.getfixturevalue("redis_url"))
