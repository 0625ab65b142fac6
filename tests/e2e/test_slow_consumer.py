"""A slow consumer on a real socket: a client of a real ``agon serve`` that follows busy contests and stops
reading, with a small receive buffer, so the server's socket and then its send queue fill. The server drops
it (1013, ``server/too_slow``) within the documented bound, keeps its memory for it bounded, and every other
follower receives every patch, in order and on time; the dropped client resumes afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import time
from pathlib import Path

from websockets.exceptions import ConnectionClosed

from clients.python.client import AgonClient
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.net.settings import Settings
from tests.e2e.conftest import ServerFactory, ServerProcess, http_get
from tests.net.duel import duel
from tests.net.slow_client import slow_client

CONTESTS = 4  # busy contests the slow client follows at once
REASON = "a long account of the wound " * 70  # ~2 KB: every patch carries it (the view's log)
SEND_QUEUE = Settings.send_queue  # the documented bound, unchanged


def metric(server: ServerProcess, name: str) -> float:
    _, body = http_get(f"{server.http_url}/metrics")
    found = re.search(rf"^{re.escape(name)} (\S+)$", body, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def rss_bytes(server: ServerProcess) -> int:
    assert server.process is not None
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    assert found is not None
    return int(found.group(1)) * 1024


def kernel_send_buffer_max() -> int:
    """The most a TCP socket's send buffer may grow to (Linux: the third figure of tcp_wmem)."""
    return int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])


async def test_a_slow_consumer_is_dropped_and_resumes_while_the_others_are_unaffected(
    agon_server: ServerFactory,
) -> None:
    server = agon_server(env={"AGON_RATE": "100000", "AGON_BURST": "100000"})
    gms: list[AgonClient] = []
    spectators: list[Follow] = []
    for _ in range(CONTESTS):
        gm = await AgonClient.connect(server.ws_url)
        created = await gm.create(duel())
        await gm.follow(created.contest, created.invitations.gm)
        gms.append(gm)
        spectators.append(Follow(created.contest, created.invitations.spectator))
    contests = [f.contest for f in spectators]
    assert all(c is not None for c in contests)
    fast = await AgonClient.connect(server.ws_url, follow=spectators)
    arrived: dict[tuple[str, int], float] = {}
    fast.on_change(lambda mirror: arrived.setdefault((mirror.contest, mirror.version), time.monotonic()))

    slow, slow_socket = await slow_client(server.ws_url, server.port, spectators)
    start_versions = {f.contest: fast.mirrors[f.contest or ""].version for f in spectators}
    baseline_rss = rss_bytes(server)
    connections_before = metric(server, "agon_connections")

    acked: dict[tuple[str, int], float] = {}
    stop = asyncio.Event()

    async def play(gm: AgonClient, contest: str) -> None:
        n = 0
        while not stop.is_set():
            ack = await gm.command(contest, x.Adjust(contestant="orc", delta=1 - 2 * (n % 2), reason=f"{n} {REASON}"))
            acked[(contest, ack.version)] = time.monotonic()
            n += 1

    players = [asyncio.create_task(play(gm, c)) for gm, c in zip(gms, contests, strict=True) if c is not None]
    peak_rss = baseline_rss
    dropped_at: float | None = None
    commands_at_drop = 0
    started = time.monotonic()
    try:
        while time.monotonic() - started < 120:
            await asyncio.sleep(0.2)
            peak_rss = max(peak_rss, rss_bytes(server))
            if metric(server, 'agon_connections_dropped_total{reason="too_slow"}') >= 1:
                dropped_at = time.monotonic()
                commands_at_drop = len(acked)
                break
        assert dropped_at is not None, f"not dropped after {len(acked)} commands"
        # The contests keep moving a little after the drop, for the others.
        await asyncio.sleep(1.0)
    finally:
        stop.set()
        await asyncio.gather(*players, return_exceptions=True)
    for task in players:
        assert task.exception() is None

    # Dropped within the documented bound: at most send_queue frames waited in the server's queue, beyond
    # what the two sockets' kernel buffers hold (each frame is one patch of at least the reason's size).
    patch_bytes = len(REASON)
    kernel_bytes = kernel_send_buffer_max() + slow_socket.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    assert commands_at_drop <= SEND_QUEUE + 2 * CONTESTS + kernel_bytes // patch_bytes
    # ... and its connection is gone within the close timeout.
    deadline = time.monotonic() + Settings.close_timeout + 5
    while metric(server, "agon_connections") >= connections_before and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    assert metric(server, "agon_connections") == connections_before - 1
    # The server's memory stayed bounded while the client read nothing: its queue (512 frames of ~2 KB), one
    # write batch in the transport, and what the contests themselves grew by (about 11 MiB measured).
    assert peak_rss - baseline_rss < 32 * 1024 * 1024, (peak_rss - baseline_rss) / 2**20

    # Every other follower received every patch, in order, soon after its command was acknowledged.
    for contest in contests:
        assert contest is not None
        mirror = await fast.wait_version(contest, max(v for c, v in acked if c == contest), timeout=30)
        assert mirror.patches[0][0] == start_versions[contest]
        assert all(a[1] == b[0] for a, b in zip(mirror.patches, mirror.patches[1:], strict=False))
        assert all(b == a + 1 for a, b in mirror.patches)
    delays = [arrived[key] - at for key, at in acked.items()]
    assert max(delays) < 3.0, max(delays)

    # The slow client finds its connection gone once it reads again, and resumes from what it holds.
    with contextlib.suppress(ConnectionClosed, OSError):
        async with asyncio.timeout(30):
            while True:
                await slow.recv()
    # A client that reads nothing never gets to the close frame (1013) behind the frames it left unread: the
    # server drops the socket once the close timeout passes, and the client sees it reset (1006).
    assert slow.close_code in (1013, 1006)
    held = [Follow(f.contest, f.token, after=start_versions[f.contest]) for f in spectators]
    resumed = await AgonClient.connect(server.ws_url, follow=held)
    for contest in contests:
        assert contest is not None
        assert resumed.mirrors[contest].doc == fast.mirrors[contest].doc
    for client in [*gms, fast, resumed]:
        await client.close()
