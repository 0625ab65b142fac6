"""The bus (``server.feed.bus``) over the store's Redis, beside the contests' keys:

- ``agon:{proc:<name>}:alive``  set by each process every ``RENEW`` seconds, expiring after ``ALIVE`` seconds:
  a process that stops renewing (killed, frozen, cut off) is dead for the others after at most that long;
- ``agon:{proc:<name>}:inbox``  the channel of one process's inbox (sharded pub/sub on Redis >= 7, so in a cluster
  one node carries it);
- ``agon:{<contest>}:host``     the name of the process hosting the contest (in the contest's hash tag). It has no
  expiry: a holder is replaced when it is dead, checked by the one taking it over, in two steps — see ``claim``.

Pub/sub is at-most-once: whoever reads an inbox is told when it may have missed messages (``on_reset``), and the
messages carry their own sequence numbers (``server.feed.relay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable
from typing import Any

from server.store.port import UnavailableError
from server.store.redis import DROPPED, RedisStore, _key

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


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisBus:
    def __init__(self, store: RedisStore) -> None:
        self._store = store
        self._me = uuid.uuid4().hex[:16]
        self._claim = store.client.register_script(_CLAIM)
        self._release = store.client.register_script(_RELEASE)
        self._tasks: list[asyncio.Task[None]] = []
        self._lost: list[Callable[[], None]] = []
        self._started = False
        self._closed = False

    @property
    def me(self) -> str:
        return self._me

    def _start(self) -> None:
        if not self._started:
            self._started = True
            self._tasks.append(asyncio.get_running_loop().create_task(self._live(), name="bus:alive"))

    async def _live(self) -> None:
        """Renew this process's liveness; a renewal that finds it had expired tells ``on_lost``."""
        key = _proc(self._me, "alive")
        first = True
        while not self._closed:
            try:
                async with self._store.reachable():
                    before = await self._store.client.set(key, b"1", px=int(ALIVE * 1000), get=True)
                if before is None and not first:
                    log.warning("not seen alive for %.1fs: this process's contests may be hosted elsewhere", ALIVE)
                    for told in self._lost:
                        told()
                first = False
            except UnavailableError as error:
                log.info("cannot renew this process's liveness: %s", error)
            await asyncio.sleep(RENEW)

    async def claim(self, contest: str) -> str:
        self._start()
        key = _key(contest, "host")
        async with self._store.reachable():
            await self._store.client.set(_proc(self._me, "alive"), b"1", px=int(ALIVE * 1000))
            holder = _text(await self._claim(keys=[key], args=[self._me, ""]))
        if holder != self._me and not await self.alive(holder):
            async with self._store.reachable():
                holder = _text(await self._claim(keys=[key], args=[self._me, holder]))
        return holder

    async def release(self, contest: str) -> None:
        with contextlib.suppress(UnavailableError):
            async with self._store.reachable():
                await self._release(keys=[_key(contest, "host")], args=[self._me])

    async def alive(self, process: str) -> bool:
        if process == self._me:
            return not self._closed
        async with self._store.reachable():
            return bool(await self._store.client.exists(_proc(process, "alive")))

    async def post(self, process: str, data: bytes) -> int:
        return await self._store.publish(_proc(process, "inbox"), data)

    async def listen(self, on_message: Callable[[bytes], None], on_reset: Callable[[], None]) -> None:
        self._start()
        loop = asyncio.get_running_loop()
        listening: asyncio.Future[None] = loop.create_future()
        task = loop.create_task(self._inbox(on_message, on_reset, listening), name="bus:inbox")
        self._tasks.append(task)
        await asyncio.wait([listening, task], timeout=5.0, return_when=asyncio.FIRST_COMPLETED)

    def on_lost(self, told: Callable[[], None]) -> None:
        self._lost.append(told)

    async def _inbox(
        self, on_message: Callable[[bytes], None], on_reset: Callable[[], None], listening: asyncio.Future[None]
    ) -> None:
        channel = _proc(self._me, "inbox")
        backoff = 0.05
        first = True
        while not self._closed:
            try:
                listeners = await self._store.listeners_for(channel)
            except UnavailableError as error:
                log.info("inbox: no connection (%s), again in %.2fs", error, backoff)
                await asyncio.sleep(backoff)
                backoff = min(2 * backoff, 1.0)
                continue
            pubsub = listeners.pubsub()
            try:
                await self._store.listen(pubsub, channel)
                if not listening.done():
                    listening.set_result(None)
                if not first:
                    on_reset()  # messages sent while the inbox was away are lost
                first = False
                backoff = 0.05
                while not self._closed:
                    async with self._store.reachable():
                        message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    kind = str(message["type"])
                    if kind in DROPPED:
                        raise UnavailableError("the inbox's subscription was dropped (its slot moved)")
                    if kind in ("message", "smessage"):
                        on_message(message["data"])
            except UnavailableError as error:
                if self._closed:
                    return
                log.info("inbox lost (%s), again in %.2fs", error, backoff)
                first = False
                await asyncio.sleep(backoff)
                backoff = min(2 * backoff, 1.0)
            finally:
                await self._store.let_go(listeners, pubsub)

    async def close(self) -> None:
        """Stop, and stop being alive at once: the contests this process hosted are taken over without waiting
        for its liveness to expire."""
        self._closed = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._started:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0), self._store.reachable():
                    await self._store.client.delete(_proc(self._me, "alive"))
