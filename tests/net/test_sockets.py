"""One client address may hold only so many sockets: idle connections from one address never take every file
descriptor, and everybody else is still served."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidMessage

from clients.python.client import AgonClient
from protocol.codec import decode, encode
from protocol.messages import Hello, Ping, Pong, ServerMessage
from server.net.forwarded import trusted_networks
from tests.net.conftest import Start
from tests.net.duel import duel

CAP = 8


async def idle_sockets(port: int, count: int, source: str = "127.0.0.1") -> list[asyncio.StreamWriter]:
    """``count`` TCP connections to the server that never send a byte."""
    writers = []
    for _ in range(count):
        _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        writers.append(writer)
    return writers


async def closed_at_once(port: int) -> bool:
    """Whether a new socket is closed by the server before it sends anything."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        async with asyncio.timeout(2):
            return await reader.read(1) == b""
    except (TimeoutError, ConnectionError):
        return False
    finally:
        writer.close()


async def pings_from(url: str, source: str) -> bool:
    """A WebSocket from ``source`` (an address of this machine) says hello and gets its pong."""
    async with connect(url, local_addr=(source, 0), open_timeout=3) as ws:
        await ws.send(encode(Hello()).decode())
        await ws.send(encode(Ping(nonce=7)).decode())
        async with asyncio.timeout(3):
            while True:
                message = decode(await ws.recv(), ServerMessage)
                if isinstance(message, Pong):
                    return message.nonce == 7


async def test_idle_sockets_of_one_address_cannot_take_every_connection(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    """One address holding its cap of idle sockets is refused the next one at once (closed before any byte,
    and without a line in the log), while a client from another address is served; a socket closed frees its
    place."""
    server = await start(max_connections_address=CAP)
    hogs = await idle_sockets(server.port, CAP)
    assert await closed_at_once(server.port)
    with pytest.raises(InvalidMessage):  # closed before the handshake's answer
        await AgonClient.connect(server.ws_url, timeout=3)
    assert await pings_from(server.ws_url, "127.0.0.2")

    hogs.pop().close()
    await asyncio.sleep(0.2)
    client = await AgonClient.connect(server.ws_url, timeout=3)  # its place is free again
    assert (await client.create(duel())).contest
    await client.close()
    for hog in hogs:
        hog.close()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and "secret" not in r.getMessage()]


async def test_open_websockets_count_until_they_close(start: Start) -> None:
    """Live connections count as idle sockets do; closing them gives their places back."""
    server = await start(max_connections_address=CAP)
    clients = [await AgonClient.connect(server.ws_url) for _ in range(CAP)]
    assert await closed_at_once(server.port)
    for client in clients:
        await client.close()
    await asyncio.sleep(0.2)
    again = [await AgonClient.connect(server.ws_url) for _ in range(CAP)]
    for client in again:
        await client.ping()
        await client.close()


async def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_cap(start: Start) -> None:
    """The proxy's own sockets are not capped; the clients it forwards are, each by its address, and the one
    over the cap is told why (rate/limited) before its connection is closed."""
    server = await start(max_connections_address=2, trusted_proxies=trusted_networks("127.0.0.1"))
    opened = []
    for client_address in ("203.0.113.5", "203.0.113.5", "198.51.100.7", "198.51.100.7"):
        headers = {"X-Forwarded-For": client_address}
        opened.append(await connect(server.ws_url, additional_headers=headers))
    third = await connect(server.ws_url, additional_headers={"X-Forwarded-For": "203.0.113.5"})
    refused = decode(await third.recv(), ServerMessage)
    assert getattr(refused, "code", None) == "rate/limited"
    assert "at most 2 connections" in getattr(refused, "message", "")
    with contextlib.suppress(Exception):
        await third.recv()
    assert third.close_code == 1013
    await opened[0].close()
    await asyncio.sleep(0.2)
    fourth = await connect(server.ws_url, additional_headers={"X-Forwarded-For": "203.0.113.5"})
    await fourth.send(encode(Hello()).decode())
    await fourth.send(encode(Ping(nonce=3)).decode())
    assert isinstance(decode(await fourth.recv(), ServerMessage), Pong)
    for ws in (*opened[1:], fourth):
        await ws.close()
