"""One Lua script's calls sent back to back on one Redis connection of their own, answers read in order.

The appends of every contest a process hosts go to Redis this way: each is written to the socket at once, and
one reader takes the answers as they come, in the order the calls were sent (Redis answers a connection's
commands in order). Through redis-py's client each call would borrow a connection from its pool, time its write
and its read (a task and a timer each on Python 3.11) and give the connection back, which under load cost a
process more than the rest of the append.

redis-py still makes the connection (TLS, credentials, database, protocol), packs the commands and parses the
answers. A call outstanding for longer than ``timeout`` seconds breaks the connection (Redis stopped answering);
a call whose connection broke is sent once more on a new one (the append script answers a batch it holds
already with its versions), then fails with ``UnavailableError``.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store.port import UnavailableError
from server.store.settle import settle

_LOST = (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError)


class _Lost(Exception):
    """The connection broke before the call's answer was read."""


class _Carrier:
    """One connection, the answers it owes in the order its calls were sent, and the task reading them."""

    def __init__(self, connection: AbstractConnection) -> None:
        self.connection = connection
        self.waiting: collections.deque[tuple[float, asyncio.Future[Any]]] = collections.deque()
        self.open = True
        self.loop = asyncio.get_running_loop()  # once: on Python 3.11 each call asks the system for the process id
        self.reader = self.loop.create_task(self._read())

    async def call(self, packed: list[bytes]) -> Any:
        if not self.open or not self.connection.is_connected:
            self.open = False
            raise _Lost("the connection was closed")
        answer: asyncio.Future[Any] = self.loop.create_future()
        # The connection is open and checks no health, so nothing is awaited before the call is written: calls
        # are written in the order their answers are queued.
        self.waiting.append((self.loop.time(), answer))
        try:
            await self.connection.send_packed_command(packed, check_health=False)
        except BaseException:
            answer.cancel()  # no answer comes for it: the connection is broken, which the reader finds
            raise
        return await answer

    async def _read(self) -> None:
        waiting = self.waiting
        error: Exception = _Lost("the connection was closed")
        try:
            while True:
                try:
                    reply: Any = await self.connection.read_response()
                except ResponseError as refused:  # this call's answer is an error: the next one follows
                    reply = refused
                settle(waiting.popleft()[1], reply)
        except asyncio.CancelledError:
            error = _Lost("no answer in time")
        except Exception as failure:
            error = _Lost(str(failure) or type(failure).__name__)
        finally:
            self.open = False
            while waiting:
                settle(waiting.popleft()[1], error)
            await asyncio.shield(self.connection.disconnect(nowait=True))

    def overdue(self, now: float, timeout: float) -> bool:
        return bool(self.waiting) and now - self.waiting[0][0] > timeout


class ScriptLine:
    def __init__(self, url: str, source: str, *, name: str, timeout: float = 10.0) -> None:
        self._name = name  # the server, for messages (without credentials)
        self._source = source
        self._sha = hashlib.sha1(source.encode()).hexdigest()
        # No socket timeout: the reader waits for answers as long as calls are outstanding, and _check times them.
        self._pool = ConnectionPool.from_url(url, socket_connect_timeout=5, socket_timeout=None)
        self._timeout = timeout
        self._carrier: _Carrier | None = None
        self._connecting = asyncio.Lock()
        self._watch: asyncio.TimerHandle | None = None
        self._closed = False

    async def __call__(self, keys: list[str], args: list[bytes | str | int]) -> Any:
        """The script's answer; ``UnavailableError`` when Redis cannot be reached or does not answer."""
        lost: Exception | None = None
        for _ in range(3):
            try:
                if isinstance(lost, NoScriptError):
                    await self._load()  # Redis restarted, or its scripts were flushed
                return await self._call(keys, args)
            except NoScriptError as error:
                lost = error
            except (_Lost, *_LOST) as error:
                if lost is not None and not isinstance(lost, NoScriptError):
                    raise UnavailableError(f"redis {self._name}: {error}") from error
                lost = error  # sent once more, on a new connection
        raise UnavailableError(f"redis {self._name}: {lost}") from lost

    async def _call(self, keys: list[str], args: list[bytes | str | int]) -> Any:
        if self._closed:
            raise UnavailableError("store is closed")
        carrier = self._carrier
        if carrier is None or not carrier.open:
            carrier = await self._connect()
        return await carrier.call(carrier.connection.pack_command("EVALSHA", self._sha, len(keys), *keys, *args))

    async def _connect(self) -> _Carrier:
        async with self._connecting:
            if self._carrier is not None and self._carrier.open:
                return self._carrier
            connection = await self._connection()
            self._carrier = _Carrier(connection)
            if self._watch is None:
                self._watch = asyncio.get_running_loop().call_later(self._timeout / 2, self._check)
            return self._carrier

    async def _connection(self) -> AbstractConnection:
        connection: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        async with asyncio.timeout(self._timeout):  # connecting asks Redis things too
            await connection.connect()  # type: ignore[no-untyped-call]
        return connection

    async def _load(self) -> None:
        connection = await self._connection()
        try:
            async with asyncio.timeout(self._timeout):
                await connection.send_command("SCRIPT", "LOAD", self._source)
                await connection.read_response()
        finally:
            await connection.disconnect()

    def _check(self) -> None:
        """Break the connection when its oldest outstanding call has waited too long."""
        loop = asyncio.get_running_loop()
        carrier = self._carrier
        if carrier is not None and carrier.overdue(loop.time(), self._timeout):
            carrier.reader.cancel()
        self._watch = None if self._closed else loop.call_later(self._timeout / 2, self._check)

    async def close(self) -> None:
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self._carrier is not None:
            self._carrier.reader.cancel()
            await asyncio.gather(self._carrier.reader, return_exceptions=True)
        await self._pool.aclose()
