"""How many sockets one client address may hold open at once.

Every socket costs a file descriptor, and a process has a fixed number of them: without a cap, one address
opening idle connections takes them all and nobody else is served. A socket is counted from the moment it
is accepted — before its HTTP request, so idle half-open sockets count too — until it closes; the one over
the cap is closed at once. Behind a trusted reverse proxy the peer is the proxy: those sockets are counted
by the client address the proxy forwards, once the request is read (see ``admit``).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from websockets.asyncio.server import ServerConnection

from server.net.forwarded import Network, trusted


class AddressCount:
    """Open sockets per client address, at most ``cap`` each (0: no cap)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.open: Counter[str] = Counter()
        self.refused = 0  # sockets closed for being over the cap, since the start

    def enter(self, address: str) -> bool:
        """Count one more socket of ``address`` (False, counting nothing: it holds ``cap`` already)."""
        if self.cap and self.open[address] >= self.cap:
            self.refused += 1
            return False
        self.open[address] += 1
        return True

    def leave(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def capped_connections(count: AddressCount, proxies: tuple[Network, ...]) -> type[ServerConnection]:
    """The connection class for ``websockets.serve``: each socket is counted against its peer's address as
    it is accepted and closed at once when that address holds ``count.cap`` sockets already (sockets of a
    trusted proxy are left to ``admit``)."""

    class CappedConnection(ServerConnection):
        counted: str | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            peer: Any = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
            if proxies and trusted(address, proxies):
                return
            if count.enter(address):
                self.counted = address
            else:
                self.transport.abort()

        def connection_lost(self, exc: Exception | None) -> None:
            if self.counted is not None:  # counted by its peer, or by the address a proxy forwarded (``admit``)
                count.leave(self.counted)
                self.counted = None
            super().connection_lost(exc)

    return CappedConnection


def admit(connection: ServerConnection, address: str, count: AddressCount) -> bool:
    """Count a proxied connection against the client ``address`` the proxy forwarded (False: over the cap).
    A connection counted already (by its own peer) is not counted twice."""
    if getattr(connection, "counted", None) is not None:
        return True
    if not count.enter(address):
        return False
    connection.counted = address  # type: ignore[attr-defined]
    return True
