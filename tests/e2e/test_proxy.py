"""Any process serves any contest: three `agon serve` processes on one Redis behind a real nginx (run from
deploy/nginx.conf) over TLS with a throwaway certificate. A table's connections meet on one process (nginx
hashes /ws?contest=ID); the process killed mid-contest hands its clients to the others through resume, and
nothing is lost."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from pathlib import Path

import pytest

from clients.python.client import AgonClient
from clients.python.errors import Disconnected
from protocol.events import Command, Declare
from protocol.messages import Ack, Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory, ServerProcess, http_get
from tests.e2e.proxy import Nginx, throwaway_certificate
from tests.e2e.test_processes import assert_gapless_and_audited
from tests.net.duel import ARIA_WINS, ap, duel

WAIT = 60.0


def open_connections(server: ServerProcess) -> int:
    """The process's own count of open WebSocket connections (its /metrics, asked directly)."""
    status, body = http_get(f"{server.http_url}/metrics")
    assert status == 200
    found = re.search(r"^agon_connections (\d+(?:\.\d+)?)$", body, re.MULTILINE)
    assert found is not None, body
    return int(float(found.group(1)))


async def until_acked(client: AgonClient, contest: str, command: Command) -> Ack:
    """Send a command and retry it with the same id across reconnections until it is acknowledged."""
    id = uuid.uuid4().hex
    deadline = time.monotonic() + WAIT
    while True:
        try:
            return await client.command(contest, command, id=id, timeout=5)
        except (Disconnected, TimeoutError):
            assert time.monotonic() < deadline, "the command was never acknowledged"
            await asyncio.sleep(0.1)


@pytest.fixture
def proxy_env() -> dict[str, str]:
    return {"AGON_HOSTS": "localhost", "AGON_TRUSTED_PROXIES": "127.0.0.1"}


async def test_three_processes_behind_nginx_over_tls_lose_nothing_when_one_dies(
    agon_server: ServerFactory,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    proxy_env: dict[str, str],
) -> None:
    servers = [agon_server(store=redis_url, env=proxy_env) for _ in range(3)]
    cert, key = throwaway_certificate(tmp_path)
    nginx = Nginx(tmp_path / "nginx", [s.port for s in servers], cert, key).start()
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the clients trust the throwaway certificate
    url = f"wss://localhost:{nginx.port}/ws"
    clients: list[AgonClient] = []
    try:
        gm = await AgonClient.connect(url, resume=True)
        clients.append(gm)
        created = await gm.create(duel(contest=f"proxy-{uuid.uuid4().hex[:8]}"))
        contest, invitations = created.contest, created.invitations
        await gm.follow(contest, invitations.gm)
        for token in (invitations.seats["ann"], invitations.seats["bob"], invitations.spectator, invitations.gm):
            clients.append(await AgonClient.connect(url, follow=[Follow(contest, token)], resume=True))
        gm, ann, bob, _, gm2 = clients  # gm2: the GM's second window, on another process than the first
        # Metrics stay on the internal network: each process serves them, the proxy does not.
        assert http_get(f"https://localhost:{nginx.port}/metrics")[0] == 404
        status, body = http_get(f"{servers[0].http_url}/metrics")
        assert status == 200 and "agon_connections" in body
        # Contest affinity: the four connections that name the contest (/ws?contest=ID) meet on one process;
        # the GM's first window, opened before the contest existed, landed by round robin.
        counts = [open_connections(server) for server in servers]
        assert sum(counts) == 5 and max(counts) >= 4, counts

        await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
        await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
        rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
        for client in clients:
            assert (await client.wait_version(contest, rolled.version)).rules["last"]["result"] == "orc loses 8 AP"

        # Kill the busiest process (it holds one of the GM's windows) without warning: its clients reconnect
        # through nginx to the others, and the GM's commands sent meanwhile are retried until acknowledged.
        victim = max(servers, key=open_connections)
        survivors = [server for server in servers if server is not victim]
        victim.kill()
        adjusted = [
            await until_acked((gm, gm2)[i % 2], contest, x.Adjust(contestant="aria", delta=1, reason=f"after {i}"))
            for i in range(8)
        ]
        head = max(ack.version for ack in adjusted)
        for client in clients:
            mirror = await client.wait_version(contest, head, timeout=WAIT)
            assert mirror.in_sync
            assert ap(mirror.doc or {})["aria"] == 15 + 8  # each adjustment exactly once
        deadline = time.monotonic() + WAIT
        while sum(open_connections(server) for server in survivors) != 5:
            assert time.monotonic() < deadline, "not every client came back on a surviving process"
            await asyncio.sleep(0.1)
    finally:
        for client in clients:
            await client.close()
        nginx.stop()

    envelopes = await assert_gapless_and_audited(redis_url, contest, head)
    assert sum(1 for e in envelopes if type(e.event).__name__ == "Declared") >= 2
