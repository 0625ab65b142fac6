"""Contest affinity as the clients practise it: the Python library (joining, and resuming by itself after a
lost connection), the terminal client and the Node spectator open ``/ws?contest=ID`` for the contest they
follow, through a recording relay in front of a real `agon serve`, and play normally through it; a client that
follows nothing yet names no contest. Through a real nginx run from deploy/nginx.conf, a table's connections
meet on one of three processes."""

from __future__ import annotations

import asyncio
import re
import uuid
from pathlib import Path

import pytest

from clients.python import AgonClient, join
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.e2e.proxy import Nginx, throwaway_certificate
from tests.e2e.relay import relay
from tests.e2e.test_node_spectator import first_line, node_spectator
from tests.e2e.test_proxy import open_connections, until_acked
from tests.e2e.test_terminal import expect, spawn
from tests.engine.table import duel
from tests.net.duel import duel as named_duel


async def test_the_python_client_names_its_contest_when_joining_and_resuming(agon_server: ServerFactory) -> None:
    server = agon_server()
    async with relay(server.ws_url.removesuffix("/ws")) as proxy:
        gm = await AgonClient.connect(proxy.ws_url)
        created = await gm.create(duel())
        contest, tokens = created.contest, created.invitations
        await gm.follow(contest, tokens.gm)
        table = await join(f"{proxy.http_url}/#t={tokens.seats['ann']}")
        watcher = await AgonClient.connect(proxy.ws_url, follow=[Follow(contest, tokens.spectator)], resume=True)
        assert proxy.paths == ["/ws", f"/ws?contest={contest}", f"/ws?contest={contest}"]
        table.client.abort()  # a lost connection: the client resumes by itself, naming the contest again
        watcher.abort()
        ack = await until_acked(
            table.client, contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5))
        )
        assert (await watcher.wait_version(contest, ack.version)).in_sync
        assert proxy.paths[3:] == [f"/ws?contest={contest}"] * 2
        for client in (gm, table.client, watcher):
            await client.close()


async def test_the_terminal_client_names_its_contest(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    async with relay(server.ws_url.removesuffix("/ws")) as proxy:
        gm = await AgonClient.connect(server.ws_url)
        created = await gm.create(duel())
        child = spawn("play", f"{proxy.http_url}/#{created.invitations.seats['ann']}", cwd=tmp_path)
        try:
            await expect(child, "you are ann \\(player\\), playing Aria")
            await expect(child, "agon>")
        finally:
            child.terminate(force=True)
        assert proxy.paths == [f"/ws?contest={created.contest}"]
        await gm.close()


async def test_the_node_spectator_names_its_contest(agon_server: ServerFactory) -> None:
    server = agon_server()
    async with relay(server.ws_url.removesuffix("/ws")) as proxy:
        gm = await AgonClient.connect(server.ws_url)
        created = await gm.create(duel())
        async with node_spectator(f"{proxy.http_url}/#t={created.invitations.spectator}") as spectator:
            welcome = await first_line(spectator)
            assert welcome.startswith("welcome as spectator"), welcome
        assert proxy.paths == [f"/ws?contest={created.contest}"]
        await gm.close()


async def test_a_tables_connections_meet_on_one_process_behind_nginx(
    agon_server: ServerFactory, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"AGON_HOSTS": "localhost", "AGON_TRUSTED_PROXIES": "127.0.0.1"}
    servers = [agon_server(store=redis_url, env=env) for _ in range(3)]
    cert, key = throwaway_certificate(tmp_path)
    nginx = Nginx(tmp_path / "nginx", [s.port for s in servers], cert, key).start()
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    url = f"wss://localhost:{nginx.port}/ws"
    try:
        gm = await AgonClient.connect(url)
        clients = [gm]
        tables = []
        night = uuid.uuid4().hex[:8]
        for n in range(3):
            created = await gm.create(named_duel(contest=f"night-{night}-{n}"))
            tokens = created.invitations
            tables.append(
                [
                    await AgonClient.connect(url, follow=[Follow(created.contest, token)])
                    for token in (tokens.gm, tokens.seats["ann"], tokens.seats["bob"], tokens.spectator)
                ]
            )
            clients += tables[-1]
        counts = [open_connections(server) for server in servers]
        assert sum(counts) == 1 + 4 * 3, counts
        # every table's four connections on one process: its count moves by four when the table leaves
        for table in tables:
            before = [open_connections(server) for server in servers]
            for client in table:
                await client.close()
            for _ in range(50):  # the processes count a closed connection as they see it close
                after = [open_connections(server) for server in servers]
                if sum(before) - sum(after) == 4:
                    break
                await asyncio.sleep(0.05)
            assert sorted(b - a for b, a in zip(before, after, strict=True)) == [0, 0, 4], (before, after)
    finally:
        for client in clients:
            await client.close()
        nginx.stop()
    assert re.search(rf"/ws\?contest=night-{night}-0 ", (tmp_path / "nginx" / "access.log").read_text())
