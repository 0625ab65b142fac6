"""The presence board in Redis (and Redis Cluster), next to the contest's keys and in their slot:

- ``agon:{c}:presence``         hash: process -> ``<until, ms of Redis's clock>|<Here as JSON>``; the key itself
  expires a ``ttl`` after the last write, so a contest nobody follows leaves nothing behind
- ``agon:{c}:presence:notify``  channel: a process's name, each time an entry of the contest changed or went

One Lua script reads and writes the hash (drops the entries past their time, writes or drops this process's,
publishes on the channel when anything changed, and returns the other live entries): it touches one key, so one
slot, and publishes on a channel of that slot (sharded pub/sub where the server has it, as the store's own
notifications). Each process listens to the channels of the contests it has followers of: on one server over one
pub/sub connection, in a cluster over a connection to the node owning each contest's slot (as the store's tails).
After a lost connection a listener subscribes again and tells every contest it listens to (a notification may
have been lost meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from protocol.codec import decode, encode
from server.store.presence import TTL, Changed, Here
from server.store.redis import _NOW_MS, RedisStore, _bytes, _key

log = logging.getLogger(__name__)

WAIT = 0.5
"""Seconds a listener waits for a message before it looks for contests to (un)subscribe."""

_SHARE = (
    _NOW_MS
    + """
-- KEYS[1]: a contest's presence hash (process -> '<until ms>|<entry>').
-- ARGV[1]: this process; ARGV[2]: 'put' (its entry, ARGV[3]), 'drop' (its entry goes) or 'look';
-- ARGV[4]: for how many ms a put entry lasts; ARGV[5], ARGV[6]: the command (SPUBLISH or PUBLISH) and the channel
-- that tell the others when an entry changed or went. Returns the other processes' live entries.
local ms = now_ms()
local changed = false
local mine = nil
local others = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local value = all[i + 1]
  local bar = string.find(value, '|', 1, true) or 1
  local expires = tonumber(string.sub(value, 1, bar - 1)) or 0
  local entry = string.sub(value, bar + 1)
  if all[i] == ARGV[1] then
    mine = entry
  elseif expires <= ms then
    redis.call('HDEL', KEYS[1], all[i])
    changed = true
  else
    others[#others + 1] = entry
  end
end
local lasts = tonumber(ARGV[4])
if ARGV[2] == 'put' then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', ms + lasts) .. '|' .. ARGV[3])
  if redis.call('PTTL', KEYS[1]) < lasts then redis.call('PEXPIRE', KEYS[1], lasts) end
  if mine ~= ARGV[3] then changed = true end
elseif ARGV[2] == 'drop' and mine then
  redis.call('HDEL', KEYS[1], ARGV[1])
  changed = true
end
if changed then redis.pcall(ARGV[5], ARGV[6], ARGV[1]) end
return others
"""
)

_PREFIX = "agon:{"
_SUFFIX = "}:presence:notify"


def _channel(contest: str) -> str:
    return _key(contest, "presence:notify")


def _contest_of(channel: object) -> str | None:
    name = _bytes(channel).decode()
    if name.startswith(_PREFIX) and name.endswith(_SUFFIX):
        return name[len(_PREFIX) : -len(_SUFFIX)]
    return None


class RedisBoard:
    def __init__(self, store: RedisStore, on_change: Changed, *, ttl: float = TTL) -> None:
        self.process = uuid.uuid4().hex
        self.ttl = ttl
        self._store = store
        self._on_change = on_change
        self._lasts_ms = max(1, int(ttl * 1000))
        self._script = store._client.register_script(_SHARE)
        self._listening: set[str] = set()
        self._shared: _Listener | None = None  # on one server: one connection for every contest
        self._by_contest: dict[str, _Listener] = {}  # in a cluster: one per contest, to its slot's node
        self._closed = False

    async def _call(self, contest: str, mode: str, entry: bytes = b"") -> list[Here]:
        command = "SPUBLISH" if await self._store._sharded_pubsub() else "PUBLISH"
        async with self._store._reachable():
            reply = await self._script(
                keys=[_key(contest, "presence")],
                args=[self.process, mode, entry, self._lasts_ms, command, _channel(contest)],
            )
        entries: list[Here] = []
        for data in reply or []:
            with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
                entries.append(decode(_bytes(data), Here))
        return entries

    async def share(self, contest: str, here: Here | None) -> list[Here]:
        if here is None:
            return await self._call(contest, "drop")
        return await self._call(contest, "put", encode(here))

    async def others(self, contest: str) -> list[Here]:
        return await self._call(contest, "look")

    def listen(self, contest: str) -> None:
        if self._closed or contest in self._listening:
            return
        self._listening.add(contest)
        if self._store._cluster is not None:
            self._by_contest[contest] = _Listener(self, {contest}, self._node_for(contest))
            return
        if self._shared is None:
            self._shared = _Listener(self, set(), self._server)
        self._shared.add(contest)

    def unlisten(self, contest: str) -> None:
        self._listening.discard(contest)
        listener = self._by_contest.pop(contest, None)
        if listener is not None:
            listener.stop()
        if self._shared is not None:
            self._shared.remove(contest)

    async def _server(self) -> tuple[Redis, bool]:
        return self._store._listeners, False  # the store's listening client: each pub/sub takes a connection

    def _node_for(self, contest: str) -> Callable[[], Awaitable[tuple[Redis, bool]]]:
        async def connect() -> tuple[Redis, bool]:
            return await self._store._listeners_for(contest), True

        return connect

    def _told(self, contest: str) -> None:
        if contest in self._listening and not self._closed:
            self._on_change(contest)

    @property
    def stopped(self) -> bool:
        return self._closed or self._store._closed

    async def close(self) -> None:
        self._closed = True
        self._listening.clear()
        listeners = [*self._by_contest.values(), *([self._shared] if self._shared is not None else [])]
        self._by_contest.clear()
        self._shared = None
        for listener in listeners:
            listener.stop()
        for listener in listeners:
            await listener.finished()


class _Listener:
    """One pub/sub connection listening to the presence channels of ``contests``."""

    def __init__(
        self, board: RedisBoard, contests: set[str], connect: Callable[[], Awaitable[tuple[Redis, bool]]]
    ) -> None:
        self._board = board
        self.contests = contests
        self._connect = connect
        self._wake = asyncio.Event()
        self._stopped = False
        self._task = asyncio.get_running_loop().create_task(self._run(), name="agon-presence-listener")

    def add(self, contest: str) -> None:
        self.contests.add(contest)
        self._wake.set()

    def remove(self, contest: str) -> None:
        self.contests.discard(contest)

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()
        self._task.cancel()

    async def finished(self) -> None:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def _run(self) -> None:
        backoff = 0.05
        while not (self._stopped or self._board.stopped):
            client: Redis | None = None
            owned = False
            pubsub: PubSub | None = None
            try:
                client, owned = await self._connect()
                pubsub = client.pubsub()
                await self._listen(pubsub)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self._stopped or self._board.stopped:
                    return
                log.info("presence listener lost redis, again in %.2fs: %s", backoff, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]
                if owned and client is not None:
                    self._board._store._node_listeners.discard(client)
                    with contextlib.suppress(Exception):
                        await client.aclose()

    async def _listen(self, pubsub: PubSub) -> None:
        sharded = await self._board._store._sharded_pubsub()
        subscribed: set[str] = set()
        while not (self._stopped or self._board.stopped):
            self._wake.clear()
            wanted = set(self.contests)
            adding = [_channel(c) for c in wanted - subscribed]
            dropping = [_channel(c) for c in subscribed - wanted]
            if adding:
                await (pubsub.ssubscribe(*adding) if sharded else pubsub.subscribe(*adding))
            if dropping:
                await (pubsub.sunsubscribe(*dropping) if sharded else pubsub.unsubscribe(*dropping))
            subscribed = wanted
            if not subscribed:
                await self._wake.wait()
                continue
            message = await pubsub.get_message(timeout=WAIT)
            if message is not None:
                self._take(message, subscribed)

    def _take(self, message: dict[str, Any], subscribed: set[str]) -> None:
        kind = str(message["type"])
        contest = _contest_of(message["channel"])
        if contest is None:
            return
        if kind in ("subscribe", "ssubscribe"):
            self._board._told(contest)  # listening now: read what may have changed before
        elif kind in ("message", "smessage"):
            if _bytes(message["data"]).decode() != self._board.process:
                self._board._told(contest)
        elif kind in ("unsubscribe", "sunsubscribe") and contest in subscribed:
            # The server dropped a subscription this listener still wants (in a cluster, the slot moved).
            raise ConnectionError(f"the presence subscription of {contest} was dropped")
