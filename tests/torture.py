"""Proving runs: real ``agon serve`` processes killed with SIGKILL, ``redis-server`` killed under load (and,
under ``appendfsync everysec``, a power loss: its append-only file cut back to its last fsync), and a
fuzzer over the frame decoder and command handling. The suite runs short versions
(``tests/e2e/test_torture.py``); the long ones run from the command line and print a table::

    .venv/bin/python -m tests.torture [--kills 30] [--redis-kills 10] [--fuzz 1000000] [--seconds 0.6]
        [--reissues 60] [--flood 300] [--costly | --no-costly]

Every run checks, from the store itself after the last restart: versions 1..N with no gap, the hash
chain and a clean re-fold (``agon verify``'s audit), every acknowledged command's batch present exactly
once at the version it was acknowledged with, every client's view equal to a fresh client's view of the
same version, and no sealed payload in any frame sent to a spectator or to the other player ("leaks").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidMessage

from clients.python.client import AgonClient, Disconnected, Refusal
from protocol.codec import decode, decode_untrusted, encode
from protocol.errors import Refused
from protocol.events import Declare, Envelope
from protocol.messages import ClientMessage, Create, Created, Execute, Follow, Hello, Ping, Pong, ServerMessage
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.net.settings import Settings
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.store import MemoryStore, open_store
from tests.costly import BUDGET, costly_commands
from tests.e2e.conftest import free_port
from tests.e2e.reissue_race import reissue_race
from tests.engine.table import GM
from tests.net.duel import duel

AGON = str(Path(sys.executable).with_name("agon"))
SECRET = "torture-secret-0123456789abcdef0123"
RETRYABLE = {"store/unavailable", "store/conflict", "server/shutting_down", "server/internal"}
UNTOWARD = ("Traceback", "never retrieved", " ERROR ")
"""What a process's log may not hold after takeovers: a routine event, however often it happens."""
EVERYSEC_WINDOW = 1.0
"""Redis's documented bound for ``appendfsync everysec``: the file is fsynced once a second, so a power loss
loses about the last second of writes (a power-loss kill cuts the file back by up to this much)."""
SEALED = "sealed-"
"""Every sealed intent's action starts with this: no frame to a spectator or to Bob may contain it."""


@dataclass(frozen=True)
class Loss:
    """What one redis-server kill lost: acknowledged commands, and how far back before the kill the first of
    them had been acknowledged."""

    commands: int
    window: float  # seconds; 0 when nothing was lost
    cut: float = 0.0  # seconds of writes the append-only file lost (a power loss); 0 for a SIGKILL


@dataclass
class Tally:
    """What a run did and found; the table the long run prints."""

    kills: int = 0
    redis_kills: int = 0
    commands_verified: int = 0
    fuzz_inputs: int = 0
    property_cases: int = 0
    slowest_frame: float = 0.0
    leaks: int = 0
    lost_acknowledged: dict[str, int] = field(default_factory=dict)  # by run (Redis everysec)
    losses: dict[str, list[Loss]] = field(default_factory=dict)  # by run: what each redis-server kill lost
    unavailable_refusals: int = 0
    health_503_seen: bool = False
    reissues: int = 0  # re-issues of a link on one process while the old link wrote on another
    old_link_commands: int = 0
    old_link_stored_after: int = 0
    new_link_refused: int = 0
    flood_sockets: int = 0  # idle sockets one address opened against a process of 256 file descriptors
    flood_held: int = 0  # how many of them the process kept open
    flood_served: str = ""  # what another address got meanwhile
    worst_cpu: dict[str, tuple[str, float]] = field(default_factory=dict)  # ruleset -> (command, CPU seconds)
    failures: list[str] = field(default_factory=list)

    def table(self) -> str:
        lost = ", ".join(f"{name}: {count}" for name, count in self.lost_acknowledged.items()) or "0"
        per_kill = [
            (f"lost per redis-server kill, {name}", loss_figures(losses)) for name, losses in self.losses.items()
        ]
        rows = [
            ("kills survived (agon serve, SIGKILL)", str(self.kills)),
            ("redis-server kills survived", str(self.redis_kills)),
            ("commands verified", str(self.commands_verified)),
            ("fuzz inputs tried", str(self.fuzz_inputs)),
            ("property cases run", str(self.property_cases)),
            ("slowest frame (CPU time)", f"{self.slowest_frame * 1000:.1f} ms"),
            ("store/unavailable refusals during Redis outages", str(self.unavailable_refusals)),
            ("/healthz 503 seen during an outage", "yes" if self.health_503_seen else "no"),
            ("acknowledged commands lost", lost),
            *per_kill,
            (
                "old-link commands stored after their re-issue (two processes)",
                f"{self.old_link_stored_after} of {self.old_link_commands} over {self.reissues} re-issues",
            ),
            ("new links refused auth/revoked", str(self.new_link_refused)),
            ("idle sockets of one address held open", f"{self.flood_held} of {self.flood_sockets}"),
            ("another address during the flood", self.flood_served or "not run"),
            *(
                (f"worst command CPU, {name}", f"{cmd}: {cpu * 1000:.0f} ms")
                for name, (cmd, cpu) in self.worst_cpu.items()
            ),
            ("leaks found", str(self.leaks)),
            ("failures", str(len(self.failures))),
        ]
        width = max(len(name) for name, _ in rows)
        lines = [f"| {'run':<{width}} | result |", f"|{'-' * (width + 2)}|--------|"]
        lines += [f"| {name:<{width}} | {value} |" for name, value in rows]
        return "\n".join([*lines, *(f"FAILURE: {failure}" for failure in self.failures)])


def loss_figures(losses: list[Loss]) -> str:
    """``kills, max and median commands lost per kill, longest window``, as the table prints it."""
    if not losses:
        return "no kills"
    counts = sorted(loss.commands for loss in losses)
    window = max(loss.window for loss in losses) * 1000
    return (
        f"{len(losses)} kills: max {counts[-1]}, median {statistics.median(counts):g} commands;"
        f" window max {window:.0f} ms"
    )


# --- processes ------------------------------------------------------------------------------------


def health(port: int, source: str | None = None) -> int:
    """The status of ``/healthz`` (0: no answer), asked from ``source`` (an address of this machine) if given."""
    address = (source, 0) if source is not None else None
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2, source_address=address)
    try:
        connection.request("GET", "/healthz", headers={"Host": f"127.0.0.1:{port}"})
        return connection.getresponse().status
    except OSError:
        return 0
    finally:
        connection.close()


class Serve:
    """``agon serve`` on a fixed port, restarted on the same port after each kill."""

    def __init__(
        self, store: str, workdir: Path, env: Mapping[str, str] | None = None, files: int | None = None
    ) -> None:
        self.store, self.workdir, self.port = store, workdir, free_port()
        self.files = files  # the process's limit of open files (RLIMIT_NOFILE), when given
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
        self.env.update({"AGON_SECRET": SECRET, "AGON_RATE": "100000", "AGON_BURST": "100000", **(env or {})})
        self.process: subprocess.Popen[bytes] | None = None
        self.reported: Report | None = None  # what it said of itself at the end of a run

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def other_url(self) -> str | None:
        """Where half of each table connects, when not to ``url``."""
        return None

    def hosted(self) -> float:
        """How many contests the process hosts now (its /metrics; 0 when it does not answer)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
        try:
            connection.request("GET", "/metrics", headers={"Host": f"127.0.0.1:{self.port}"})
            text = connection.getresponse().read().decode()
        except OSError:
            return 0.0
        finally:
            connection.close()
        found = re.search(r"^agon_contests_hosted (\S+)$", text, re.MULTILINE)
        return float(found.group(1)) if found else 0.0

    def start(self, timeout: float = 30.0) -> None:
        command = [AGON, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--store", self.store, "--create"]
        with (self.workdir / f"agon-{self.port}.log").open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=self.workdir, env=self.env, stdout=log, stderr=log, preexec_fn=self._limit_files
            )
        deadline = time.monotonic() + timeout
        while health(self.port) != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"agon serve on {self.port} did not start (see {self.workdir})")
            time.sleep(0.05)

    def _limit_files(self) -> None:
        if self.files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.files, self.files))

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def report(self) -> Report:
        """What the running process says about itself: ``/healthz``, ``/metrics``, and its log so far."""
        bodies = []
        for path in ("/healthz", "/metrics"):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as response:
                    bodies.append(response.read().decode())
            except urllib.error.HTTPError as error:
                bodies.append(error.read().decode())
        log = (self.workdir / f"agon-{self.port}.log").read_text(errors="replace")
        return Report(json.loads(bodies[0]), bodies[1], log)


@dataclass(frozen=True)
class Report:
    health: dict[str, Any]
    metrics: str
    log: str


class RedisProcess:
    """A redis-server with an append-only file in its own directory; SIGKILLed and restarted in place."""

    def __init__(self, workdir: Path, fsync: str) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on PATH")
        self.binary, self.workdir, self.fsync, self.port = binary, workdir, fsync, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        options = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.workdir), "--save", ""]
        options += ["--appendonly", "yes", "--appendfsync", self.fsync, "--logfile", str(self.workdir / "redis.log")]
        self.process = subprocess.Popen([self.binary, *options], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def aof(self) -> Path | None:
        """The append-only file Redis writes to now (the newest incremental file of ``appendonlydir``)."""
        files = sorted((self.workdir / "appendonlydir").glob("*.incr.aof"), key=lambda f: int(f.name.split(".")[-3]))
        return files[-1] if files else None

    async def holding(self, contests: list[str], within: float = 10.0) -> None:
        """Wait until the append-only file names each of ``contests``."""
        deadline = time.monotonic() + within
        while True:
            aof = self.aof()
            written = aof.read_bytes() if aof is not None else b""
            if all(contest.encode() in written for contest in contests):
                return
            assert time.monotonic() < deadline, f"the append-only file never held {contests}"
            await asyncio.sleep(0.01)

    async def track_aof(self, sizes: list[tuple[float, int]], stop: asyncio.Event) -> None:
        """Record (time, size) of the append-only file every 10 ms: what a disk could hold after a power loss."""
        while not stop.is_set():
            aof = self.aof()
            if aof is not None:
                with contextlib.suppress(OSError):
                    sizes.append((time.monotonic(), aof.stat().st_size))
            await asyncio.sleep(0.01)

    def lose_power(self, sizes: list[tuple[float, int]], since_fsync: float) -> float:
        """SIGKILL, then cut the append-only file back to its length ``since_fsync`` seconds ago, as a power
        loss leaves it when the last fsync was that long ago (``everysec``: at most about one second). The
        moment of the kill."""
        killed = time.monotonic()
        self.kill()
        aof = self.aof()
        # No sample that old: the file as it was when Redis last started (it had loaded all of it).
        kept = [size for at, size in sizes if at <= killed - since_fsync] or [size for _, size in sizes[:1]]
        if aof is not None and kept:
            with aof.open("r+b") as file:
                file.truncate(min(kept[-1], aof.stat().st_size))  # Redis drops a command cut in half on load
        return killed


# --- scripted clients -----------------------------------------------------------------------------


async def reconnect(client: AgonClient, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            await client.reconnect(timeout=5)
            return
        except Exception:
            await asyncio.sleep(0.1)


async def acting(
    client: AgonClient,
    contest: str,
    make: Any,
    acked: dict[str, int],
    acked_at: dict[str, float],
    stop: asyncio.Event,
    tally: Tally,
) -> None:
    """Send commands one after another; a lost connection or a retryable refusal resends the same id."""
    n = 0
    while not stop.is_set():
        command_id = f"{contest}:{make.__name__}:{n}"
        while True:
            try:
                ack = await client.command(contest, make(n), id=command_id, timeout=10)
                acked[command_id] = ack.version
                acked_at[command_id] = time.monotonic()
                break
            except Refusal as refused:
                if refused.code not in RETRYABLE:
                    raise
                tally.unavailable_refusals += refused.code == "store/unavailable"
                await asyncio.sleep(0.05)
            except (Disconnected, ConnectionClosed, OSError, TimeoutError):
                await reconnect(client, stop)
            if stop.is_set():
                return
        n += 1


async def watching(client: AgonClient, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(Exception):
            await client.wait_closed(timeout=0.5)
        if client.close_code is not None or client._ws is None:
            await reconnect(client, stop)


def adjust(n: int) -> x.Adjust:
    return x.Adjust(contestant="orc", delta=-1 if n % 2 == 0 else 1, reason=f"wound {n}")


def declare(n: int) -> Declare:
    # Never revealed: Bob never declares for the orc, so every payload stays sealed for good.
    return Declare(participant="aria", payload=x.Intent(action=f"{SEALED}{n}-{uuid.uuid4().hex[:6]}", bid=2))


@dataclass
class Table:
    contest: str
    gm: AgonClient
    ann: AgonClient
    bob: AgonClient
    spectator: AgonClient
    acked: dict[str, int] = field(default_factory=dict)
    acked_at: dict[str, float] = field(default_factory=dict)  # command id -> when its ack arrived

    @property
    def clients(self) -> list[AgonClient]:
        return [self.gm, self.ann, self.bob, self.spectator]


async def open_table(url: str, other: str | None = None) -> Table:
    """A table whose GM and Bob connect to ``url``, Ann and the spectator to ``other`` (if given, else ``url``)."""
    elsewhere = other or url
    gm = await AgonClient.connect(url)
    created = await gm.create(duel(contest=f"t-{uuid.uuid4().hex[:10]}"))
    contest, seats = created.contest, created.invitations.seats
    await gm.follow(contest, created.invitations.gm)
    ann = await AgonClient.connect(elsewhere, follow=[Follow(contest, seats["ann"])])
    bob = await AgonClient.connect(url, follow=[Follow(contest, seats["bob"])], record_frames=True)
    spectator = await AgonClient.connect(
        elsewhere, follow=[Follow(contest, created.invitations.spectator)], record_frames=True
    )
    return Table(contest, gm, ann, bob, spectator)


async def check_tables(tables: list[Table], store_spec: str, url: str, tally: Tally, name: str) -> None:
    """After the last restart: the store holds every acknowledged command once, in a clean chain, and every
    client's view is the fresh view of the same version."""
    store = open_store(store_spec)
    try:
        for table in tables:
            envelopes = [decode(r.data, Envelope) for r in await store.read(table.contest)]
            if [e.version for e in envelopes] != list(range(1, len(envelopes) + 1)):
                tally.failures.append(f"{name} {table.contest}: versions have a gap")
            finding = audit(envelopes, ruleset_named).finding
            if finding is not None:
                tally.failures.append(f"{name} {table.contest}: {finding}")
            batches = Counter(e.command_id for e in envelopes if e.batch_end)
            ends = {e.command_id: e.version for e in envelopes if e.batch_end}
            lost = 0
            for command_id, version in table.acked.items():
                if batches[command_id] == 0:
                    lost += 1
                elif batches[command_id] != 1 or ends[command_id] != version:
                    tally.failures.append(f"{name} {command_id}: stored {batches[command_id]} times")
            if lost:
                tally.lost_acknowledged[name] = tally.lost_acknowledged.get(name, 0) + lost
            tally.commands_verified += len(table.acked) - lost
            head = len(envelopes)
            for client in table.clients:
                mirror = await client.wait_version(table.contest, head, timeout=30)
                fresh = await AgonClient.connect(url, follow=[Follow(table.contest, mirror.token)])
                fresh_mirror = await fresh.wait_version(table.contest, head, timeout=30)
                if mirror.doc != fresh_mirror.doc:
                    tally.failures.append(f"{name} {table.contest}: a resumed view differs from a fresh one")
                await fresh.close()
            tally.leaks += sum(SEALED in frame for c in (table.bob, table.spectator) for frame in c.frames)
    finally:
        await store.close()


async def stored_commands(tables: list[Table], store_spec: str) -> set[str]:
    """The command ids whose batches the store holds now."""
    store = open_store(store_spec)
    try:
        return {
            envelope.command_id
            for table in tables
            for envelope in (decode(r.data, Envelope) for r in await store.read(table.contest))
            if envelope.batch_end
        }
    finally:
        await store.close()


async def count_loss(tables: list[Table], store_spec: str, killed: float, cut: float, lost: set[str]) -> Loss:
    """What the last kill lost: acknowledged commands the store no longer holds (and had not lost before)."""
    acked_at = {command_id: at for table in tables for command_id, at in table.acked_at.items()}
    now_lost = set(acked_at) - await stored_commands(tables, store_spec) - lost
    lost |= now_lost
    return Loss(len(now_lost), max((killed - acked_at[c] for c in now_lost), default=0.0), cut)


async def run_tables(
    serve: Serve | Hosts,
    store_spec: str,
    tally: Tally,
    name: str,
    kills: int,
    pause: float,
    kill_redis: RedisProcess | None,
    since_fsync: tuple[float, float] | None = None,
) -> None:
    """Two tables play while ``kills`` processes are SIGKILLed (agon serve, or redis-server). With
    ``since_fsync`` (a range of seconds), each redis-server kill is a power loss: its append-only file
    loses what was written in the last ``since_fsync`` seconds. Every redis-server kill's loss is counted."""
    tables = [await open_table(serve.url, serve.other_url) for _ in range(2)]
    if kill_redis is not None:
        # A power loss cuts the file back to a length sampled since the tables opened: their creation must be
        # in the file by then (on a busy disk, everysec Redis may hold its writes back for up to 2 s).
        await kill_redis.holding([t.contest for t in tables])
    stop = asyncio.Event()
    workers = [
        asyncio.create_task(acting(t.gm, t.contest, adjust, t.acked, t.acked_at, stop, tally)) for t in tables
    ] + [asyncio.create_task(acting(t.ann, t.contest, declare, t.acked, t.acked_at, stop, tally)) for t in tables]
    workers += [asyncio.create_task(watching(c, stop)) for t in tables for c in (t.bob, t.spectator)]
    sizes: list[tuple[float, int]] = []
    if kill_redis is not None:
        workers.append(asyncio.create_task(kill_redis.track_aof(sizes, stop)))
    lost: set[str] = set()
    try:
        for _ in range(kills):
            await asyncio.sleep(random.uniform(pause / 2, pause * 1.5))
            if kill_redis is None:
                await asyncio.to_thread(serve.kill)  # the tables play on meanwhile
                await asyncio.to_thread(serve.start)
                tally.kills += 1
            else:
                cut = 0.0 if since_fsync is None else random.uniform(*since_fsync)
                if since_fsync is None:
                    killed = time.monotonic()
                    kill_redis.kill()
                else:
                    killed = kill_redis.lose_power(sizes, cut)
                sizes.clear()
                await asyncio.sleep(0.3)
                tally.health_503_seen |= await asyncio.to_thread(health, serve.port) == 503
                await asyncio.sleep(0.3)
                await asyncio.to_thread(kill_redis.start)
                tally.redis_kills += 1
                loss = await count_loss(tables, store_spec, killed, cut, lost)
                tally.losses.setdefault(name, []).append(loss)
        await asyncio.sleep(pause)
    finally:
        stop.set()
        await asyncio.gather(*workers, return_exceptions=True)
    for failure in (w.exception() for w in workers if not w.cancelled() and w.exception() is not None):
        tally.failures.append(f"{name}: a client failed: {failure!r}")
    for table in tables:
        for client in table.clients:
            if client.close_code is not None or client._ws is None:
                await reconnect(client, asyncio.Event())
    await check_tables(tables, store_spec, serve.url, tally, name)
    for table in tables:
        for client in table.clients:
            await client.close()


async def crash_loop(store: str, kills: int, tally: Tally, workdir: Path, pause: float = 0.6) -> None:
    """SIGKILL ``agon serve`` at random moments while two tables play; then check everything."""
    redis: RedisProcess | None = None
    if store == "redis":
        redis = RedisProcess(workdir, "always")
        redis.start()
        spec = redis.url
    else:
        spec = f"sqlite:{workdir / 'agon.sqlite3'}"
    serve = Serve(spec, workdir)
    serve.start()
    try:
        await run_tables(serve, spec, tally, f"crash-{store}", kills, pause, None)
    finally:
        serve.kill()
        if redis is not None:
            redis.kill()


class Hosts:
    """Two processes on one store, each table's connections on both; each kill is of the process hosting the
    tables' contests (it folds them; the other relays its frames), so every kill is a takeover."""

    def __init__(self, store: str, workdir: Path) -> None:
        self.first, self.second = Serve(store, workdir), Serve(store, workdir)
        self.victim = self.first

    @property
    def url(self) -> str:
        return self.first.url

    @property
    def other_url(self) -> str | None:
        return self.second.url

    @property
    def port(self) -> int:
        return self.first.port

    def start(self) -> None:
        """Start the process killed last (at first: both)."""
        for serve in (self.first, self.second):
            if serve is self.victim or serve.process is None:
                serve.start()

    def kill(self) -> None:
        """Kill the process hosting the contests, once one does (after a kill the other takes them over when the
        dead one's liveness lapses, about two seconds)."""
        deadline = time.monotonic() + 10
        while max(self.first.hosted(), self.second.hosted()) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.victim = max((self.first, self.second), key=Serve.hosted)
        self.victim.kill()


async def takeover_loop(kills: int, tally: Tally, workdir: Path, pause: float = 0.6) -> None:
    """SIGKILL the process hosting two tables' contests at random moments, each table's connections on both
    processes (Redis, ``appendfsync always``); then check everything."""
    redis = RedisProcess(workdir, "always")
    redis.start()
    hosts = Hosts(redis.url, workdir)
    hosts.start()
    try:
        await run_tables(hosts, redis.url, tally, "takeover", kills, pause, None)
    finally:
        hosts.first.kill()
        hosts.second.kill()
        redis.kill()
    for log in sorted(workdir.glob("agon-*.log")):  # a takeover is routine: nothing in it is an error to log
        text = log.read_text(errors="replace")
        tally.failures += [f"takeover: {log.name} logs {said!r}" for said in UNTOWARD if said in text]


async def redis_faults(
    fsync: str,
    kills: int,
    tally: Tally,
    workdir: Path,
    pause: float = 0.6,
    since_fsync: tuple[float, float] | None = None,
) -> Serve:
    """SIGKILL ``redis-server`` under load and restart it from its append-only file (cut back by a power loss
    with ``since_fsync``). The ``agon serve`` it ran against (stopped), whose log is in ``workdir``."""
    redis = RedisProcess(workdir, fsync)
    redis.start()
    serve = Serve(redis.url, workdir)
    serve.start()
    name = f"redis-{fsync}" + ("-power-loss" if since_fsync is not None else "")
    try:
        await run_tables(serve, redis.url, tally, name, kills, pause, redis, since_fsync)
        serve.reported = await asyncio.to_thread(serve.report)
    finally:
        serve.kill()
        redis.kill()
    return serve


# --- re-issue races, connection floods, costly commands -------------------------------------------


async def reissue_races(reissues: int, tally: Tally, workdir: Path) -> None:
    """Two ``agon serve`` on one Redis: the GM re-issues Ann's link on one while her old link writes through
    the other; nothing the old link sends may be stored after the re-issue, and no new link is refused."""
    redis = RedisProcess(workdir, "always")
    redis.start()
    first, second = Serve(redis.url, workdir), Serve(redis.url, workdir)
    first.start()
    second.start()
    try:
        report = await reissue_race(first.url, second.url, redis.url, reissues)
    finally:
        first.kill()
        second.kill()
        redis.kill()
    tally.reissues += report.reissues
    tally.old_link_commands += report.old_link_commands
    tally.old_link_stored_after += report.stored_after_reissue
    tally.new_link_refused += report.new_link_refused
    if report.stored_after_reissue:
        tally.failures.append(f"re-issue: {report.stored_after_reissue} old-link commands stored after the re-issue")
    if report.new_link_refused:
        tally.failures.append(f"re-issue: {report.new_link_refused} new links refused auth/revoked")


FLOOD_FILES = 256  # the process's file descriptors in the flood run


async def connection_flood(sockets: int, tally: Tally, workdir: Path) -> None:
    """One address opens ``sockets`` idle WebSockets (each says hello, then nothing) against a process limited
    to 256 file descriptors: the process keeps at most its per-address cap of them, and a client from another
    address is still served (a contest created and a ping answered) with ``/healthz`` at 200."""
    serve = Serve(f"sqlite:{workdir / 'agon.sqlite3'}", workdir, files=FLOOD_FILES)
    serve.start()
    hogs: list[ClientConnection] = []
    try:
        for _ in range(sockets):
            with contextlib.suppress(OSError, TimeoutError, ConnectionClosed, InvalidMessage):
                ws = await connect(serve.url, open_timeout=2)
                hogs.append(ws)
                await ws.send(encode(Hello()).decode())
        started = time.monotonic()
        served = await _served_from("127.0.0.2", serve.url)
        elapsed = (time.monotonic() - started) * 1000
        healthy = await asyncio.to_thread(health, serve.port, "127.0.0.2")
        held = sum(1 for ws in hogs if ws.close_code is None)
    finally:
        for ws in hogs:
            ws.transport.abort()
        serve.kill()
    tally.flood_sockets += sockets
    tally.flood_held = max(tally.flood_held, held)
    tally.flood_served = f"served in {elapsed:.0f} ms, /healthz {healthy}" if served else "not served"
    if not served or healthy != 200:
        tally.failures.append(f"flood: another address was {tally.flood_served}")
    if held > Settings.max_connections_address:
        tally.failures.append(f"flood: one address held {held} sockets (cap {Settings.max_connections_address})")


async def _served_from(source: str, url: str) -> bool:
    """A client from ``source`` connects, creates a contest and is answered a ping."""
    try:
        async with asyncio.timeout(10):
            async with connect(url, local_addr=(source, 0)) as ws:
                await ws.send(encode(Hello()).decode())
                await ws.send(encode(Create(id="c", contest=duel())).decode())
                await ws.send(encode(Ping(nonce=5)).decode())
                created = False
                while True:
                    message = decode(await ws.recv(), ServerMessage)
                    created = created or isinstance(message, Created)
                    if isinstance(message, Pong):
                        return created
    except (OSError, TimeoutError, ConnectionClosed, InvalidMessage):
        return False


def costly(tally: Tally) -> None:
    """The most expensive command of each ruleset at its table limits, every sight following."""
    for cost in costly_commands():
        if cost.cpu > tally.worst_cpu.get(cost.ruleset, ("", 0.0))[1]:
            tally.worst_cpu[cost.ruleset] = (cost.command, cost.cpu)
        if cost.cpu > BUDGET:
            spent = f"{cost.cpu * 1000:.0f} ms of CPU (budget {BUDGET * 1000:.0f})"
            tally.failures.append(f"{cost.ruleset} {cost.command}: {spent}")


# --- fuzzing --------------------------------------------------------------------------------------

EXTREMES: list[Any] = [0, -1, 1, 2**31, -(2**63), 2**64, 10**30, 1e308, -0.0, "", "x" * 300, None, True, [], {}]


def seed_frames(contest: str) -> list[dict[str, Any]]:
    """Valid frames of every kind, mutated by the fuzzer."""
    commands = [
        declare(1),
        adjust(1),
        x.Roll(faces=[3, 10]),
        x.SetOrder(order=["orc", "aria"]),
        x.ProposeBid(contestant="aria", bid=4),
        x.PartingShot(contestant="aria", rating="5W2"),
    ]
    frames: list[dict[str, Any]] = [json.loads(encode(Execute(id="c", contest=contest, command=c))) for c in commands]
    frames.append(json.loads(encode(Create(id="n", contest=duel()))))
    frames.append({"type": "hello", "follow": [{"contest": contest, "token": "agon1.x.y", "after": 3}]})
    return frames


def mutate(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        copy = dict(value)
        if rng.random() < 0.1:
            del copy[key]
        else:
            copy[key] = mutate(value[key], rng)
        return copy
    if isinstance(value, list) and value and rng.random() < 0.7:
        copy = list(value)
        index = rng.randrange(len(copy))
        copy[index] = mutate(copy[index], rng)
        if rng.random() < 0.1:
            copy *= rng.randint(2, 40)
        return copy
    if isinstance(value, str) and value and rng.random() < 0.5:
        return value[: rng.randrange(len(value))] + rng.choice(["W", "M", "9" * 12, "\u0430", "\x00", "-", "20W"])
    return rng.choice(EXTREMES)


def frame_bytes(frame: Any, rng: random.Random) -> bytes:
    data = json.dumps(frame).encode()
    roll = rng.random()
    if roll < 0.05 and data:
        cut = rng.randrange(len(data))
        return data[:cut]  # a frame cut short
    if roll < 0.1 and data:
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
    return data


async def fuzz(count: int, tally: Tally, seed: int = 0, per_contest: int = 2000) -> None:
    """``count`` mutated frames through the decoder; every command that decodes runs against a live contest
    (as its GM), a fresh one every ``per_contest`` frames. Anything but a clean refusal or success, or a
    refusal that changes the log, is a failure."""
    rng = random.Random(seed)
    contest = "fuzzed"
    seeds = seed_frames(contest)
    for first in range(0, count, per_contest):
        store = MemoryStore()
        service = ContestService(store)
        await service.create(GM, duel(contest=contest))
        for i in range(first, min(count, first + per_contest)):
            await fuzz_one(frame_bytes(mutate(rng.choice(seeds), rng), rng), f"f{i}", service, contest, tally)
        await service.drain()
        await store.close()


async def fuzz_one(data: bytes, command_id: str, service: ContestService, contest: str, tally: Tally) -> None:
    """One frame; its cost is the CPU time it takes (wall time would count the other processes of a
    loaded machine)."""
    started = time.process_time()
    try:
        message = decode_untrusted(data, ClientMessage)  # type: ignore[arg-type]
        if isinstance(message, Execute):
            head = await service.store.head(contest)
            try:
                await service.execute(contest, GM, command_id, message.command)
            except Refused:
                if await service.store.head(contest) != head:
                    tally.failures.append(f"fuzz: a refused command changed the log: {data[:200]!r}")
        elif isinstance(message, Create):
            with contextlib.suppress(Refused):
                await service.create(GM, message.contest, command_id)
    except Refused:
        pass
    except Exception as error:
        tally.failures.append(f"fuzz: {type(error).__name__} on {data[:200]!r}: {error}")
    tally.slowest_frame = max(tally.slowest_frame, time.process_time() - started)
    tally.fuzz_inputs += 1


# --- the long run ---------------------------------------------------------------------------------


async def long_run(args: argparse.Namespace) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="agon-torture-") as tmp:
        root = Path(tmp)
        for store in ("sqlite", "redis"):
            (root / f"crash-{store}").mkdir()
            await crash_loop(store, args.kills, tally, root / f"crash-{store}", args.seconds)
        (root / "takeover").mkdir()
        await takeover_loop(args.kills, tally, root / "takeover", args.seconds)
        print(f"after the takeovers:\n{tally.table()}", file=sys.stderr, flush=True)
        for fsync in ("always", "everysec"):
            (root / f"redis-{fsync}").mkdir()
            await redis_faults(fsync, args.redis_kills, tally, root / f"redis-{fsync}", args.seconds)
            print(f"after the {fsync} Redis run:\n{tally.table()}", file=sys.stderr, flush=True)
        (root / "redis-power-loss").mkdir()
        await redis_faults(
            "everysec", args.redis_kills, tally, root / "redis-power-loss", args.seconds, (0.0, EVERYSEC_WINDOW)
        )
        print(f"after the everysec power-loss run:\n{tally.table()}", file=sys.stderr, flush=True)
        if args.reissues:
            (root / "reissue").mkdir()
            await reissue_races(args.reissues, tally, root / "reissue")
        if args.flood:
            (root / "flood").mkdir()
            await connection_flood(args.flood, tally, root / "flood")
        print(f"after the re-issue races and the connection flood:\n{tally.table()}", file=sys.stderr, flush=True)
    for name, count in tally.lost_acknowledged.items():
        if "everysec" not in name:  # only everysec may lose what it acknowledged
            tally.failures.append(f"{name}: {count} acknowledged commands lost")
    for name, losses in tally.losses.items():
        # Every loss is one a kill explains: found missing right after it, acknowledged after the last fsync.
        counted = sum(loss.commands for loss in losses)
        if tally.lost_acknowledged.get(name, 0) != counted:
            tally.failures.append(f"{name}: {tally.lost_acknowledged.get(name, 0)} lost, {counted} found at the kills")
        if any(loss.window > loss.cut + 0.1 for loss in losses):
            tally.failures.append(f"{name}: a command acknowledged before the last fsync was lost")
    await fuzz(args.fuzz, tally)
    print(f"after fuzzing:\n{tally.table()}", file=sys.stderr, flush=True)
    return tally


def run_properties(examples: int) -> int:
    """The suite's Hypothesis fuzz properties with ``examples`` examples each; the cases run."""
    from tests.protocol.test_fuzz import PROPERTIES

    return sum(check(examples) for check in PROPERTIES)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.torture", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30, help="SIGKILLs of agon serve per store, and of hosts")
    parser.add_argument("--redis-kills", type=int, default=10, help="SIGKILLs of redis-server per appendfsync")
    parser.add_argument("--fuzz", type=int, default=1_000_000, help="mutated frames through the decoder")
    parser.add_argument("--examples", type=int, default=20_000, help="Hypothesis examples per fuzz property")
    parser.add_argument("--seconds", type=float, default=0.6, help="mean play time between two kills")
    parser.add_argument("--reissues", type=int, default=60, help="re-issues of a link raced across two processes")
    parser.add_argument("--flood", type=int, default=300, help="idle WebSockets one address opens (256 files)")
    parser.add_argument(
        "--costly", action=argparse.BooleanOptionalAction, default=True, help="each ruleset's worst command"
    )
    args = parser.parse_args()
    tally = asyncio.run(long_run(args))
    tally.property_cases += run_properties(args.examples)  # Hypothesis runs its own event loop
    if args.costly:
        costly(tally)  # so does each measurement
    print(tally.table())
    return 1 if tally.failures or tally.leaks else 0


if __name__ == "__main__":
    raise SystemExit(main())
