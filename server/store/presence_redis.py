"""The presence board in Redis (and Redis Cluster), next to the contest's keys and in their slot:

- ``agon:{c}:presence``         hash: process -> ``<until, ms of Redis's clock>|<Here as JSON>``; the key itself
  expires a ``ttl`` after the last write, so a contest nobody follows leaves nothing behind
- ``agon:{c}:presence:notify``  channel: a process's name, each time an entry of the contest changed or went

One Lua script reads and writes the hash (drops the entries past their time, writes or drops this process's,
publishes on the channel when anything changed, and returns the other live entries): it touches one key, so one
slot, and publishes on a channel of that slot (sharded pub/sub where the server has it, as the store's own
notifications). Each process listens to the channels of the contests it has followers of beside its tails, on the
store's pub/sub connection to the server, or in a cluster to the node owning each contest's slot
(``server.store.redis_channels``). After a lost connection a contest's listener subscribes again and tells the
contest (a notification may have been lost meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import uuid
from collections.abc import Mapping

import msgspec

from protocol.codec import decode, encode
from server.ending import stop_if_cancelled
from server.store.port import UnavailableError
from server.store.presence import TTL, Changed, Here
from server.store.redis import _NOW_MS, RedisStore, ScriptCall, _bytes, _key

log = logging.getLogger(__name__)

WAIT = 0.5
"""Seconds a listener waits for its subscription to be confirmed before it reads the board anyway."""

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


def _channel(contest: str) -> str:
    return _key(contest, "presence:notify")


def _entries(reply: list[bytes] | None) -> list[Here]:
    """The other processes' entries the script returned (any that cannot be read skipped)."""
    entries: list[Here] = []
    for data in reply or []:
        with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
            entries.append(decode(_bytes(data), Here))
    return entries


class RedisBoard:
    def __init__(self, store: RedisStore, on_change: Changed, *, ttl: float = TTL) -> None:
        self.process = uuid.uuid4().hex
        self.ttl = ttl
        self._store = store
        self._on_change = on_change
        self._lasts_ms = max(1, int(ttl * 1000))
        self._script = store._client.register_script(_SHARE)
        self._listening: dict[str, asyncio.Task[None]] = {}  # each contest listened to, by its listener
        self._closed = False

    async def _call(self, contest: str, mode: str, entry: bytes = b"") -> list[Here]:
        command = await self._publishing()
        async with self._store._reachable():
            reply = await self._script(keys=[_key(contest, "presence")], args=self._args(contest, mode, entry, command))
        return _entries(reply)

    async def _publishing(self) -> str:
        return "SPUBLISH" if await self._store._sharded_pubsub() else "PUBLISH"

    def _args(self, contest: str, mode: str, entry: bytes, command: str) -> list[bytes | str | int]:
        return [self.process, mode, entry, self._lasts_ms, command, _channel(contest)]

    async def renew(self, held: Mapping[str, Here]) -> dict[str, list[Here]]:
        """One round trip to a server; in a cluster, one to each node holding some of the contests, all at once."""
        command = await self._publishing()
        calls: list[ScriptCall] = [
            (contest, [_key(contest, "presence")], self._args(contest, "put", encode(here), command))
            for contest, here in held.items()
        ]
        replies = await self._store.scripts(self._script, calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply if isinstance(reply, UnavailableError) else UnavailableError(str(reply))
        return {contest: _entries(reply) for contest, reply in zip(held, replies, strict=True)}

    async def share(self, contest: str, here: Here | None) -> list[Here]:
        if here is None:
            return await self._call(contest, "drop")
        return await self._call(contest, "put", encode(here))

    async def others(self, contest: str) -> list[Here]:
        return await self._call(contest, "look")

    def listen(self, contest: str) -> None:
        if self._closed or contest in self._listening:
            return
        listener = asyncio.get_running_loop().create_task(self._listen(contest), name="agon-presence-listener")
        self._listening[contest] = listener

    def unlisten(self, contest: str) -> None:
        listener = self._listening.pop(contest, None)
        if listener is not None:
            listener.cancel()

    async def _listen(self, contest: str) -> None:
        """Hear the contest's presence channel for as long as it is listened to."""
        backoff = 0.05
        while contest in self._listening and not self.stopped:
            try:
                channels = await self._store._channels_for(contest)
                heard = await channels.join(_channel(contest), WAIT, functools.partial(self._message, contest))
            except UnavailableError as error:
                log.info("presence listener of %s lost redis, again in %.2fs: %s", contest, backoff, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
                continue
            try:
                stop_if_cancelled()  # unlistened while joining, the cancellation lost on the way
                backoff = 0.05
                self._told(contest)  # listening now: read what may have changed before
                lost = await heard.lost()
                log.info("presence listener of %s lost redis: %s", contest, lost)
            finally:
                channels.leave(heard)

    def _message(self, contest: str, data: bytes) -> None:
        if data.decode(errors="replace") != self.process:
            self._told(contest)

    def _told(self, contest: str) -> None:
        if contest in self._listening and not self._closed:
            self._on_change(contest)

    @property
    def stopped(self) -> bool:
        return self._closed or self._store._closed

    async def close(self) -> None:
        self._closed = True
        listeners = list(self._listening.values())
        self._listening.clear()
        for listener in listeners:
            listener.cancel()
        await asyncio.gather(*listeners, return_exceptions=True)
