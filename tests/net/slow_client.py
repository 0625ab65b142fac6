"""A WebSocket client that stops reading: a small receive buffer and a reader that stops after the welcomes,
so the server's socket to it fills (a slow consumer, or a hostile one)."""

from __future__ import annotations

import socket

from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import encode
from protocol.messages import Follow, Hello

RECEIVE_BUFFER = 4096  # SO_RCVBUF


async def slow_client(ws_url: str, port: int, follow: list[Follow]) -> tuple[ClientConnection, socket.socket]:
    """Connect to ``ws_url`` (on 127.0.0.1:``port``), follow, read the welcomes, then read nothing more."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)  # before connect: the window stays small
    sock.connect(("127.0.0.1", port))
    # max_queue: the client library stops reading the socket once this many frames wait unread.
    ws = await connect(ws_url, sock=sock, max_queue=1, compression=None, ping_interval=None)
    await ws.send(encode(Hello(follow=follow)).decode())
    welcomes = 0
    while welcomes < len(follow):
        frame = str(await ws.recv())
        assert '"error"' not in frame, frame
        welcomes += '"type":"welcome"' in frame
    return ws, sock
