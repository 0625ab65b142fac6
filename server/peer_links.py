"""Messages from one server process to another over TCP: what the bus (``server.store.redis_bus``) carries between a
contest's host and its relays, without going through Redis.

Each process listens on its *link address* and keeps one connection to each process it sends to. A connection
opens with a handshake proving the sender shares the server secret (the same ``AGON_SECRET`` every process of a
deployment has) and means this process: the listener sends a random challenge, the sender answers with its name and
the HMAC-SHA256 of the challenge, its name and the name of the process it means, under the secret; a wrong answer
closes the connection. While the secret is being changed (``AGON_SECRET_PREVIOUS``, until its grace period ends)
some processes have the new secret and others only the old one: a sender then answers with a proof under each
secret it holds, and a listener takes any proof under any secret it holds. After the handshake, each message is its
length (4 bytes, big-endian) and its bytes, delivered in order. A connection that breaks may have lost messages: the
listener says so (``on_reset``); a sender finding it broken reports the message undelivered (0).

The link port must be reachable by the other processes only (a private network), like the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import struct
import time
from collections.abc import Callable, Sequence
from typing import cast

log = logging.getLogger(__name__)

CHALLENGE = 16
MAX_MESSAGE = 64 * 1024 * 1024
MAX_PROOFS = 4
_PROOF = 32
_COUNTED = 0x80
"""Set in the answer's first byte (the name's length, at most 127) when a count of proofs follows it; without it,
one proof follows the name (as every answer was before a secret could change)."""
_LENGTH = struct.Struct(">I")
_CONNECT_TIMEOUT = 2.0


def _proof(secret: bytes, challenge: bytes, name: bytes, to: bytes) -> bytes:
    """The sender ``name``'s answer to ``challenge`` from the process named ``to``: a process that listens where
    another one did (restarted on its port) refuses what was meant for the other."""
    return hmac.new(secret, b"agon-link\0" + challenge + name + b"\0" + to, hashlib.sha256).digest()


def _answer(buffer: bytearray) -> tuple[bytes, list[bytes], int] | None:
    """A sender's whole answer to the challenge at the start of ``buffer``: its name, its proofs and the answer's
    size; None while it is not all there. The answer is the name's length (1 byte; with ``_COUNTED`` set, a byte
    counting the proofs follows), the name, and the proofs (32 bytes each)."""
    if not buffer:
        return None
    size, start, count = buffer[0] & ~_COUNTED, 1, 1
    if buffer[0] & _COUNTED:
        if len(buffer) < 2:
            return None
        start, count = 2, min(buffer[1], MAX_PROOFS + 1)  # more than MAX_PROOFS: refused (no proof is read)
    end = start + size + _PROOF * count
    if count > MAX_PROOFS:
        return bytes(buffer[start : start + size]), [], end
    if len(buffer) < end:
        return None
    name = bytes(buffer[start : start + size])
    proofs = [bytes(buffer[at : at + _PROOF]) for at in range(start + size, end, _PROOF)]
    return name, proofs, end


class _Inbound(asyncio.Protocol):
    """One sender's connection: the handshake, then length-prefixed messages."""

    def __init__(self, links: PeerLinks) -> None:
        self._links = links
        self._buffer = bytearray()
        self._challenge = os.urandom(CHALLENGE)
        self._trusted = False
        self._peer = ""
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not necessarily a subclass of asyncio's (uvloop's are its own).
        self._transport = cast(asyncio.Transport, transport)
        self._transport.write(self._challenge)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        buffer = self._buffer
        if not self._trusted:
            answer = _answer(buffer)
            if answer is None:
                if len(buffer) > 2 + 127 + _PROOF * MAX_PROOFS:
                    self._refuse()
                return
            name, proofs, size = answer
            del buffer[:size]
            if not proofs or not self._links.proven(self._challenge, name, proofs):
                self._refuse()
                return
            self._trusted = True
            self._peer = name.decode(errors="replace")
        start = 0
        while len(buffer) - start >= 4:
            (length,) = _LENGTH.unpack_from(buffer, start)
            if length > MAX_MESSAGE:
                self._refuse()
                return
            if len(buffer) - start - 4 < length:
                break
            message = bytes(buffer[start + 4 : start + 4 + length])
            start += 4 + length
            self._links.deliver(message)
        if start:
            del buffer[:start]

    def _refuse(self) -> None:
        log.warning("a link connection failed its handshake or sent too much: closed")
        self._trusted = False
        if self._transport is not None:
            self._transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._trusted:
            self._links.lost(self._peer)


class PeerLinks:
    def __init__(
        self,
        secret: bytes,
        name: str,
        host: str,
        port: int,
        previous: Sequence[tuple[bytes, float]] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``previous``: former secrets with the end of their grace period (unix seconds), proved and accepted
        until then besides ``secret``."""
        self.secret = secret
        self._previous = list(previous)[: MAX_PROOFS - 1]
        self._clock = clock
        self.name = name.encode()  # what a sender must name as the process it means
        if len(self.name) > 127:
            raise ValueError("a process's link name is at most 127 bytes")
        self._host = host
        self._port = port
        self._server: asyncio.Server | None = None
        self._outbound: dict[str, asyncio.StreamWriter] = {}  # the connection kept to each other process
        self._connecting: dict[str, asyncio.Lock] = {}
        self._on_message: Callable[[bytes], None] = lambda message: None
        self._on_reset: Callable[[str], None] = lambda peer: None

    def secrets(self) -> list[bytes]:
        """The secrets this process proves itself with and accepts proofs under now: its own, and the former ones
        whose grace period has not ended."""
        now = self._clock()
        return [self.secret, *(secret for secret, until in self._previous if now < until)]

    def proven(self, challenge: bytes, name: bytes, proofs: Sequence[bytes]) -> bool:
        """Whether one of ``proofs`` answers ``challenge`` for the sender ``name`` under a secret held here."""
        expected = [_proof(secret, challenge, name, self.name) for secret in self.secrets()]
        return any(hmac.compare_digest(proof, mine) for proof in proofs for mine in expected)

    async def listen(self, on_message: Callable[[bytes], None], on_reset: Callable[[str], None]) -> tuple[str, int]:
        """Listen on the link address; return the host and port it listens on."""
        self._on_message, self._on_reset = on_message, on_reset
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _Inbound(self), self._host, self._port)
        host, port = self._server.sockets[0].getsockname()[:2]
        return str(host), int(port)

    def deliver(self, message: bytes) -> None:
        try:
            self._on_message(message)
        except Exception:
            log.exception("a link message could not be handled")

    def lost(self, peer: str) -> None:
        self._on_reset(peer)

    async def send(self, peer: str, address: str, message: bytes) -> int:
        """Send ``message`` to ``peer`` listening at ``address`` (``host:port``): 1 when it was written on an open
        connection, 0 when the peer cannot be reached."""
        writer = self._outbound.get(peer)
        if writer is None or writer.is_closing():
            writer = await self._connect(peer, address)
            if writer is None:
                return 0
        writer.write(_LENGTH.pack(len(message)) + message)
        if writer.transport.get_write_buffer_size() > 1024 * 1024:
            try:
                await writer.drain()
            except (ConnectionError, OSError):
                if self._outbound.get(peer) is writer:
                    del self._outbound[peer]
                writer.close()
                return 0
        return 1

    async def _connect(self, peer: str, address: str) -> asyncio.StreamWriter | None:
        lock = self._connecting.setdefault(peer, asyncio.Lock())
        async with lock:
            writer = self._outbound.get(peer)
            if writer is not None and not writer.is_closing():
                return writer
            host, _, port = address.rpartition(":")
            try:
                async with asyncio.timeout(_CONNECT_TIMEOUT):
                    reader, writer = await asyncio.open_connection(host.strip("[]"), int(port))
                    challenge = await reader.readexactly(CHALLENGE)
            except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError) as error:
                log.info("no link to %s at %s: %s", peer, address, error)
                return None
            proofs = [_proof(secret, challenge, self.name, peer.encode()) for secret in self.secrets()]
            if len(proofs) == 1:  # as every sender answered before a secret could change
                writer.write(bytes([len(self.name)]) + self.name + proofs[0])
            else:
                writer.write(bytes([_COUNTED | len(self.name), len(proofs)]) + self.name + b"".join(proofs))
            self._outbound[peer] = writer
            return writer

    def forget(self, peer: str) -> None:
        """``peer`` is gone: close the connection to it."""
        writer = self._outbound.pop(peer, None)
        if writer is not None:
            writer.close()
        lock = self._connecting.get(peer)
        if lock is not None and not lock.locked():
            del self._connecting[peer]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
        for writer in self._outbound.values():
            writer.close()
        self._outbound.clear()
