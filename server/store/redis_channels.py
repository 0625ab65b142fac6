"""Many contests' notification channels heard on one pub/sub connection: one to the Redis server, or one to each
node of a cluster, for every tail of a store, instead of a connection a tail (a process tailing a thousand
contests, each with its talk, held two thousand).

A tail *joins* its contest's channel and gets a ``Heard``: the newest version notified on the channel, and a wait
that returns on a notification past what the tail holds (or after a while: notifications are at most once, and
tails read the stream anyway). Joining returns once the server confirmed the subscription (or after ``confirm``
seconds, the ``Heard`` then not ``confirmed`` until the confirmation comes), so an append after a confirmed join is
notified, or is already in the stream when the tail next reads. When the
connection fails, every ``Heard`` on it is *broken* (its wait raises ``UnavailableError``: the tail connects
again and reads what it missed) and the next join opens a new connection; when the server drops one channel (a
cluster slot moved to another master) only that channel's are.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub

from server.store.port import UnavailableError
from server.store.redis_contest_list import _text

log = logging.getLogger(__name__)

DROPPED = frozenset({"sunsubscribe", "unsubscribe"})
"""Messages saying the server ended a subscription: asked for (a tail left), or not (the slot moved)."""

READ = 5.0
"""Seconds a read of the connection waits before it is made again (it is also ended by the connection's loss)."""


class Heard:
    """What one tail hears on its contest's channel."""

    def __init__(self, channel: str, on_message: Callable[[bytes], None] | None = None) -> None:
        self.channel = channel
        self.head = -1  # the newest version notified since the tail joined
        self.confirmed = False  # whether the server confirmed the subscription (a join may stop waiting first)
        self._on_message = on_message  # told every message's data (a listener that is not a tail: presence)
        self._told = asyncio.Event()
        self._broken: UnavailableError | None = None

    def tell(self, data: bytes) -> None:
        if self._on_message is not None:
            self._on_message(data)
        self.learn(_head_in(data))

    def learn(self, head: int) -> None:
        """The stream's head, learnt otherwise than from a notification (a poll round): as if notified."""
        if head > self.head:
            self.head = head
            self._told.set()

    def confirm(self, _: object = None) -> None:
        self.confirmed = True

    def break_(self, error: UnavailableError) -> None:
        if self._broken is None:
            self._broken = error
            self._told.set()

    async def lost(self) -> UnavailableError:
        """Wait until the subscription is lost: why."""
        while self._broken is None:
            self._told.clear()
            await self._told.wait()
        return self._broken

    async def wait(self, after: Callable[[], int], timeout: float | None) -> None:
        """Return once a version past ``after()`` was notified (at once if it was already), or after ``timeout``
        seconds (None: however long it takes); raise ``UnavailableError`` once the subscription is lost."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            if self._broken is not None:
                raise self._broken
            if self.head > after():
                return
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return
            self._told.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self._told.wait()


class Channels:
    """The channels this store listens to on one server (or cluster node), on one pub/sub connection."""

    def __init__(
        self,
        name: str,
        client: Redis,
        sharded: Callable[[], Awaitable[bool]],
        on_error: Callable[[Exception], None] = lambda error: None,
    ) -> None:
        self._name = name  # the server, for messages
        self._client = client
        self._sharded = sharded
        self._on_error = on_error  # told of a reply that is an error (a cluster's MOVED: learn the slots again)
        self._heard: dict[str, set[Heard]] = {}
        self._confirming: dict[str, list[asyncio.Future[None]]] = {}
        self._late: dict[str, list[asyncio.Future[None]]] = {}  # joins that stopped waiting for the confirmation
        self._leaving: collections.Counter[str] = collections.Counter()  # unsubscribes asked, not yet confirmed
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._sending = asyncio.Lock()  # one subscribe or unsubscribe at a time: the first one connects
        self._closed = False

    @property
    def client(self) -> Redis:
        return self._client

    async def join(self, channel: str, confirm: float, on_message: Callable[[bytes], None] | None = None) -> Heard:
        """Listen to ``channel``: once the server confirmed it, or after ``confirm`` seconds (``on_message``: told
        the data of every message on it)."""
        if self._closed:
            raise UnavailableError("store is closed")
        heard = Heard(channel, on_message)
        joined = self._heard.setdefault(channel, set())
        joined.add(heard)
        confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        confirmed.add_done_callback(heard.confirm)  # now, or when the confirmation comes after the join stopped waiting
        if len(joined) > 1:  # subscribed already, or being subscribed: then wait for the confirmation too
            if channel in self._confirming:
                self._confirming[channel].append(confirmed)
                await _within(confirmed, confirm)
            elif channel in self._late:
                self._late[channel].append(confirmed)
            else:
                heard.confirm()
            return heard
        self._confirming.setdefault(channel, []).append(confirmed)
        pubsub: PubSub | None = None
        try:
            sharded = await self._sharded()
            async with self._sending:
                pubsub = self._pubsub
                fresh = pubsub is None
                if pubsub is None:
                    pubsub = self._pubsub = self._client.pubsub()
                await (pubsub.ssubscribe(channel) if sharded else pubsub.subscribe(channel))
                if fresh:  # connected by its first subscription: read it from now on
                    self._reader = asyncio.get_running_loop().create_task(self._read(pubsub), name="agon-channels")
            await _within(confirmed, confirm)
            waiting = self._confirming.pop(channel, None)  # confirmed, or taken as such: later tails need not wait
            if waiting is not None and not confirmed.done():
                self._late[channel] = waiting  # but they learn when it is
        except UnavailableError as error:
            self._unheard(channel, error)
            raise
        except Exception as error:
            self._lost(pubsub, error)
            self._unheard(channel, UnavailableError(f"redis {self._name}: {error}"))
            raise UnavailableError(f"redis {self._name}: {error}") from error
        if heard not in self._heard.get(channel, ()):  # the connection was lost meanwhile
            raise UnavailableError(f"redis {self._name}: the subscription to {channel} was lost")
        return heard

    def _unheard(self, channel: str, error: UnavailableError) -> None:
        """The channel is not listened to (its subscription failed, or the connection was lost): every tail that
        joined it tries again."""
        for heard in self._heard.pop(channel, set()):
            heard.break_(error)
        self._confirmed(channel)

    def _confirmed(self, channel: str) -> None:
        """Whoever waits for the channel's subscription waits no more."""
        for confirmed in [*self._confirming.pop(channel, []), *self._late.pop(channel, [])]:
            if not confirmed.done():
                confirmed.set_result(None)

    def leave(self, heard: Heard) -> None:
        """The tail no longer listens (its ``Heard`` is done with)."""
        joined = self._heard.get(heard.channel)
        if joined is None or heard not in joined:
            return
        joined.discard(heard)
        if joined:
            return
        del self._heard[heard.channel]
        self._late.pop(heard.channel, None)
        pubsub = self._pubsub
        if pubsub is not None and not self._closed:
            self._leaving[heard.channel] += 1
            task = asyncio.get_running_loop().create_task(self._unsubscribe(pubsub, heard.channel))
            task.add_done_callback(_retrieved)

    async def _unsubscribe(self, pubsub: PubSub, channel: str) -> None:
        async with self._sending:
            if pubsub is not self._pubsub or channel in self._heard:
                self._left(channel)  # a new connection, or a tail joined again meanwhile: nothing to ask
                return
            sharded = await self._sharded()
            await (pubsub.sunsubscribe(channel) if sharded else pubsub.unsubscribe(channel))

    async def _read(self, pubsub: PubSub) -> None:
        try:
            while pubsub is self._pubsub:
                message = await pubsub.get_message(timeout=READ)
                if message is not None:
                    self._take(message)
        except Exception as error:
            self._lost(pubsub, error)

    def _take(self, message: dict[str, Any]) -> None:
        kind = str(message["type"])
        channel = _text(message.get("channel"))
        if kind in ("message", "smessage"):
            data = message["data"]
            for heard in list(self._heard.get(channel, ())):
                heard.tell(data if isinstance(data, bytes) else str(data).encode())
        elif kind in ("subscribe", "ssubscribe"):
            self._confirmed(channel)
        elif kind in DROPPED:
            if self._left(channel):
                return
            # The server ended it (in a cluster: the contest's slot moved to another master).
            error = UnavailableError(f"redis {self._name}: the subscription to {channel} was dropped (the slot moved)")
            self._on_error(error)
            for heard in self._heard.pop(channel, set()):
                heard.break_(error)

    def _left(self, channel: str) -> bool:
        """Count one unsubscribe asked of ``channel`` as answered (False when none was asked)."""
        if self._leaving[channel] <= 0:
            return False
        self._leaving[channel] -= 1
        if not self._leaving[channel]:
            del self._leaving[channel]
        return True

    def _lost(self, pubsub: PubSub | None, error: Exception) -> None:
        """The connection failed (or answered with an error): every tail on it listens again, on a new one."""
        if pubsub is None or pubsub is not self._pubsub:
            return
        self._pubsub = None
        self._on_error(error)
        broken = error if isinstance(error, UnavailableError) else UnavailableError(f"redis {self._name}: {error}")
        if not self._closed:
            log.info("listening on %s lost (%d channels listen again): %s", self._name, len(self._heard), error)
        for channel in {*self._heard, *self._confirming, *self._late}:
            self._unheard(channel, broken)
        self._leaving.clear()
        task = asyncio.get_running_loop().create_task(_closed(pubsub))
        task.add_done_callback(_retrieved)

    async def close(self) -> None:
        """Stop listening: every tail's wait ends at once."""
        self._closed = True
        self._lost(self._pubsub, UnavailableError("store is closed"))
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader


async def _within(confirmed: asyncio.Future[None], seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await asyncio.shield(confirmed)


async def _closed(pubsub: PubSub) -> None:
    with contextlib.suppress(Exception):
        await pubsub.aclose()  # type: ignore[no-untyped-call]


def _retrieved(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.debug("channels: %s", task.exception())


def _head_in(data: bytes) -> int:
    """The version a notification carries (-1 if it is not one)."""
    try:
        return int(data)
    except ValueError:
        return -1
