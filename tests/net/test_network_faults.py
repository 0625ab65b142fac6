"""Network faults over real loopback sockets: clients vanishing mid-frame, half-open sockets found by the
ping timeout, and a reconnect storm of hundreds of clients resuming at once."""

from __future__ import annotations

import asyncio
import os

from websockets.asyncio.client import connect

from clients.python.client import AgonClient
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.net.app import AgonServer
from tests.net.conftest import Start
from tests.net.test_server import open_duel


async def open_connections(server: AgonServer) -> int:
    return int(server.context.metrics.connections.value())


async def until(predicate: object, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():  # type: ignore[operator]
            await asyncio.sleep(0.02)


async def test_clients_vanishing_mid_frame_harm_nobody_else(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    for _ in range(20):
        ws = await connect(server.ws_url)
        # A masked text frame announcing 4096 bytes, of which 100 arrive before the socket dies.
        ws.transport.write(b"\x81\xfe\x10\x00" + os.urandom(4) + b"x" * 100)
        ws.transport.abort()
    ack = await gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="still here"))
    await gm.wait_version(created.contest, ack.version)
    await until(lambda: server.context.metrics.connections.value() == 1)
    await gm.close()


async def test_a_half_open_socket_is_found_by_the_ping_timeout(start: Start) -> None:
    server = await start(ping_interval=0.2, ping_timeout=0.2, close_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    assert b"101" in await reader.readline()
    await until(lambda: server.context.metrics.connections.value() == 1)
    # The peer is gone without a word (never answers a ping): the server closes it by itself.
    await until(lambda: server.context.metrics.connections.value() == 0, timeout=5)
    writer.close()


async def test_a_reconnect_storm_of_hundreds_of_clients_all_resume(start: Start) -> None:
    server = await start(rate=1000.0, burst=1000.0, max_connections_address=0)  # all 200 come from loopback
    gm, created = await open_duel(server)
    contest, token = created.contest, created.invitations.spectator
    clients = await asyncio.gather(
        *(AgonClient.connect(server.ws_url, follow=[Follow(contest, token)]) for _ in range(200))
    )
    for client in clients:
        client.abort()
    ack = await gm.command(contest, x.Adjust(contestant="orc", delta=-1, reason="during the storm"))
    await asyncio.gather(*(client.reconnect(timeout=30) for client in clients))
    mirrors = await asyncio.gather(*(client.wait_version(contest, ack.version, timeout=30) for client in clients))
    assert all(mirror.in_sync and mirror.doc == mirrors[0].doc for mirror in mirrors)
    assert sum(mirror.desyncs for mirror in mirrors) == 0
    for client in [gm, *clients]:
        await client.close()
