"""The bus (``server.feed.bus``) over the store's Redis and direct links between the processes
(``server.peer_links``): Redis keeps who hosts what and who is alive; the messages go process to process.

- ``agon:{proc:<name>}:alive``  each process's link address (``host:port``), set every ``RENEW`` seconds and
  expiring after ``ALIVE`` seconds: a process that stops renewing (killed, frozen, cut off) is dead for the others
  after at most that long;
- ``agon:{<contest>}:host``     the name of the process hosting the contest (in the contest's hash tag). It has no
  expiry: a holder is replaced when it is dead, checked by the one taking it over, in two steps — see ``claim``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import uuid
from collections.abc import Callable, Sequence

from server.ending import ended
from server.peer_links import PeerLinks
from server.store.port import UnavailableError
from server.store.redis import RedisStore, _bytes, _key

log = logging.getLogger(__name__)

ALIVE = 2.0
"""Seconds a process stays alive for the others after its last renewal (a host killed is replaced within this plus
one of its relays' checks)."""

RENEW = 0.5
"""Seconds between two renewals of a process's liveness."""

_CLAIM = """
local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] or (ARGV[2] ~= '' and holder == ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]
end
return holder
"""
"""KEYS[1]: a contest's host key; ARGV[1]: the claimant; ARGV[2]: a holder the claimant found dead ('' if none):
take it when free, already ours, or still held by that dead holder."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def _proc(name: str, suffix: str) -> str:
    return f"agon:{{proc:{name}}}:{suffix}"


class RedisBus:
    def __init__(
        self,
        store: RedisStore,
        secret: bytes,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        advertise: str = "",
        previous: Sequence[tuple[bytes, float]] = (),
    ) -> None:
        """``host``, ``port``: where this process listens for the others' messages (``port`` 0: any free one);
        ``advertise``: the host the others reach it at, when not ``host`` (listening on every interface);
        ``previous``: former secrets still accepted, each until a unix time (``server.peer_links``)."""
        self._store = store
        self._me = uuid.uuid4().hex[:16]
        self._links = PeerLinks(secret, self._me, host, port, previous)
        self._advertise = advertise
        self._address = ""
        self._addresses: dict[str, str] = {}  # other processes' link addresses, as last read
        self._claim = store.client.register_script(_CLAIM)
        self._release = store.client.register_script(_RELEASE)
        self._living: asyncio.Task[None] | None = None  # renews the liveness once listening
        self._lost: list[Callable[[], None]] = []
        self._closed = False

    @property
    def me(self) -> str:
        return self._me

    @property
    def lapse(self) -> float:
        return ALIVE

    async def listen(self, on_message: Callable[[bytes], None], on_reset: Callable[[str], None]) -> None:
        host, port = await self._links.listen(on_message, on_reset)
        if self._advertise:
            host = self._advertise
        elif host in ("0.0.0.0", "::", ""):
            host = socket.gethostbyname(socket.gethostname())
        self._address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        await self._renew()
        self._living = asyncio.get_running_loop().create_task(self._live(), name="bus:alive")

    async def _renew(self) -> bool:
        """Say this process is alive, at its link address; whether it had been seen alive until now."""
        async with self._store.reachable():
            before = await self._store.client.set(
                _proc(self._me, "alive"), self._address.encode(), px=int(ALIVE * 1000), get=True
            )
        return before is not None

    async def _live(self) -> None:
        """Renew this process's liveness; a renewal that finds it had expired tells ``on_lost``."""
        while not self._closed:
            await asyncio.sleep(RENEW)
            try:
                if not await self._renew():
                    log.warning("not seen alive for %.1fs: this process's contests may be hosted elsewhere", ALIVE)
                    for told in self._lost:
                        told()
            except UnavailableError as error:
                log.info("cannot renew this process's liveness: %s", error)

    async def claim(self, contest: str) -> str:
        key = _key(contest, "host")
        async with self._store.reachable():
            holder = _bytes(await self._claim(keys=[key], args=[self._me, ""])).decode()
        if holder != self._me and not await self.alive(holder):
            async with self._store.reachable():
                holder = _bytes(await self._claim(keys=[key], args=[self._me, holder])).decode()
        return holder

    async def release(self, contest: str) -> None:
        with contextlib.suppress(UnavailableError):
            async with self._store.reachable():
                await self._release(keys=[_key(contest, "host")], args=[self._me])

    async def alive(self, process: str) -> bool:
        if process == self._me:
            return not self._closed
        return await self._address_of(process) != ""

    async def _address_of(self, process: str) -> str:
        async with self._store.reachable():
            address = await self._store.client.get(_proc(process, "alive"))
        return "" if address is None else _bytes(address).decode()

    async def post(self, process: str, data: bytes) -> int:
        address = self._addresses.get(process)
        if address is None:
            try:
                address = await self._address_of(process)
            except UnavailableError:
                return 0
            if not address:
                return 0  # not alive
            self._addresses[process] = address
        sent = await self._links.send(process, address, data)
        if not sent:
            self._addresses.pop(process, None)  # it may have started again elsewhere: read it again next time
            self._links.forget(process)
        return sent

    def on_lost(self, told: Callable[[], None]) -> None:
        self._lost.append(told)

    async def close(self) -> None:
        """Stop, and stop being alive at once: the contests this process hosted are taken over without waiting
        for its liveness to expire."""
        self._closed = True
        if self._living is not None:
            await ended(self._living)
        await self._links.close()
        if self._address:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0), self._store.reachable():
                    await self._store.client.delete(_proc(self._me, "alive"))
