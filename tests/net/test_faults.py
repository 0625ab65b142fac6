"""Faults found by probing ``agon serve`` from outside, each reproduced through real loopback sockets."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect

from clients.python.client import AgonClient
from protocol import extended as x
from protocol.messages import Follow
from server.net.http import host_allowed, origin_allowed
from server.net.settings import Settings
from server.service import ContestService
from server.store.memory import MemoryStore
from tests.engine.table import GM
from tests.net.conftest import Start
from tests.net.test_server import get, open_duel


def gm_adjust(delta: int, reason: str) -> x.Adjust:
    return x.Adjust(contestant="orc", delta=delta, reason=reason)


async def test_a_store_that_comes_back_behind_resyncs_the_viewers_and_is_reported(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    gm, created = await open_duel(server)
    contest = created.contest
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    for i in range(3):
        head = (await gm.command(contest, gm_adjust(-1, f"wound {i}"))).version
    await ann.wait_version(contest, head)
    welcomes = len(ann.mirrors[contest].welcomes)

    events = store._events[contest]  # the store comes back without the last acknowledged event
    del store._ids[contest][events[-1].event_id]
    del events[-1]
    elsewhere = ContestService(store)  # another process writes a new history from there
    for i in range(2):
        await elsewhere.execute(contest, GM, f"elsewhere-{i}", gm_adjust(-2, f"elsewhere {i}"))

    mirror = await ann.wait_version(contest, head + 1)
    assert len(mirror.welcomes) > welcomes and mirror.welcomes[-1].view is not None
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    assert fresh.mirrors[contest].doc == mirror.doc
    status, body = await asyncio.to_thread(get, f"{server.url}healthz")
    assert status == 200 and body["status"] == "lost_events" and body["lost_events"] == {contest: 1}
    assert "agon_store_lost_events_total 1" in server.context.metrics.render()
    # And commands through this process go on, chained to what the store holds.
    after = await gm.command(contest, gm_adjust(-1, "after"))
    assert after.version == head + 2
    for client in (gm, ann, fresh):
        await client.close()


ORIGINS = [
    # origin, Host header, allowed
    ("http://127.0.0.1:8765", "127.0.0.1:8765", True),
    ("http://localhost:8765", "localhost:8765", True),
    ("http://127.0.0.1:9999", "127.0.0.1:8765", False),  # a page on another local port
    ("http://127.0.0.1", "127.0.0.1:8765", False),
    ("ftp://127.0.0.1:8765", "127.0.0.1:8765", False),
    ("null", "127.0.0.1:8765", False),
    ("https://table.example", "table.example", True),  # behind a TLS proxy: default ports agree
    ("https://table.example:8443", "table.example", False),
]


@pytest.mark.parametrize(("origin", "host", "allowed"), ORIGINS)
def test_the_origin_is_compared_in_full_with_the_servers_own(origin: str, host: str, allowed: bool) -> None:
    assert origin_allowed(origin, host, None) is allowed


def test_the_host_header_must_name_the_server() -> None:
    loopback = Settings(host="127.0.0.1", port=8765)
    assert host_allowed("127.0.0.1:8765", loopback)
    assert host_allowed("localhost:8765", loopback)
    assert host_allowed("[::1]:8765", loopback)
    assert not host_allowed("evil.example:8765", loopback)  # a DNS-rebinding page's host name
    assert not host_allowed(None, loopback)
    named = Settings(host="0.0.0.0", port=8765, hosts=("table.example",))
    assert host_allowed("table.example", named) and host_allowed("TABLE.example:8765", named)
    assert not host_allowed("evil.example", named)


async def handshake_status(port: int, host: str, origin: str | None = None) -> int:
    """The status of a raw WebSocket opening handshake sent with these headers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        *([f"Origin: {origin}"] if origin else []),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    status = await reader.readline()
    writer.close()
    return int(status.split()[1])


async def test_a_dns_rebinding_page_and_another_local_port_are_refused(start: Start) -> None:
    server = await start()
    port = server.port
    assert await handshake_status(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}") == 403
    assert await handshake_status(port, f"evil.example:{port}", f"http://evil.example:{port}") == 403
    assert await handshake_status(port, f"evil.example:{port}") == 403
    assert await handshake_status(port, f"localhost:{port}", f"http://localhost:{port}") == 101
    async with connect(server.ws_url, origin=f"http://127.0.0.1:{port}"):  # type: ignore[arg-type]
        pass
