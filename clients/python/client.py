"""An async client for Agon's WebSocket protocol.

    client = await AgonClient.connect("ws://127.0.0.1:8765/ws")
    created = await client.create(CreateContest(...))            # invitations: tokens per seat
    mirror = await client.follow(created.contest, created.invitations.gm)
    ack = await client.command(created.contest, x.Roll(faces=[3, 12]))
    await client.wait_version(created.contest, ack.version)      # mirror.doc is the view at that version

Every patch is checked against its ``view_hash``; on a mismatch the client asks for a fresh view by
itself. ``reconnect()`` resumes every followed contest from the last version seen; with ``resume=True``
the client does so by itself, with backoff, whenever the connection drops. A refusal no retry can mend
(``core.PERMANENT``: the invitation revoked or expired, a bad token, the contest gone) loses that contest for
good: ``changes()`` raises it, ``on_lost`` listeners are told, and a resuming client with nothing left to
follow closes, whether it learns so while connected or when resuming. The protocol logic is
``core.ClientCore`` (no I/O); this class is its socket loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, cast

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.frames import CloseCode

from clients.python.affinity import affinity_url
from clients.python.core import (
    PERMANENT,
    Answered,
    Changed,
    ClientCore,
    Close,
    Heard,
    Lost,
    Noticed,
    Ponged,
    Present,
    Refused,
    Send,
    Welcomed,
)
from clients.python.errors import Disconnected, Refusal, RetryLater, refusal
from clients.python.mirror import ContestMirror
from protocol.codec import encode
from protocol.events import Command, CreateContest
from protocol.messages import (
    Ack,
    Contests,
    ContestSummary,
    Create,
    Created,
    Error,
    Execute,
    Follow,
    FollowContest,
    GetTimeline,
    Hello,
    Invite,
    Invited,
    ListContests,
    Notice,
    Ping,
    Resync,
    Timeline,
    Unfollow,
)
from protocol.presence import Presence
from protocol.talk import Said, Say, TalkLine

__all__ = ["AgonClient", "Disconnected", "Refusal"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10.0

Listener = Callable[[ContestMirror], None]
LostListener = Callable[[str, Refusal], None]
_CLOSED = cast(ContestMirror, object())  # ends the iterators of changes()


class AgonClient:
    def __init__(
        self, url: str, *, origin: str | None = None, record_frames: bool = False, resume: bool = False
    ) -> None:
        self.url = url
        self.origin = origin
        self.record_frames = record_frames
        self.resume = resume  # reconnect and resume by itself when the connection drops
        self.backoff = (0.1, 5.0)  # first and longest wait between attempts to resume, in seconds
        self.frames: list[str] = []  # every frame received, as text (with record_frames)
        self.core = ClientCore()
        self.mirrors = self.core.mirrors
        self._listeners: list[Listener] = []
        self._notice_listeners: list[Callable[[Notice], None]] = []
        self._lost_listeners: list[LostListener] = []
        self._presence_listeners: list[Callable[[str, Presence], None]] = []
        self._presences: dict[str, int] = {}  # presence frames received, by contest
        self._talk_listeners: list[Callable[[str, TalkLine], None]] = []
        self._queues: list[tuple[str | None, asyncio.Queue[ContestMirror | Refusal]]] = []
        self.lost: dict[str, Refusal] = {}  # contests refused for good (PERMANENT), by contest
        self._closed = False
        self._resuming: asyncio.Task[None] | None = None
        self.errors: list[Error] = []  # errors that answer no request (bad frames, rate limits, ...)
        self.owner: str | None = None  # the owner token (given, or received on creating a contest)
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._last_word: Error | None = None  # an error answering nothing, the last frame before the server closed
        self._pending: dict[str, asyncio.Future[Any]] = {}  # request id -> answer
        self._following: dict[str, asyncio.Future[ContestMirror]] = {}  # contest -> welcome
        self._pongs: dict[int, asyncio.Future[None]] = {}
        self._nonces = itertools.count(1)
        self._changed = asyncio.Event()

    # --- connecting ---------------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        follow: Sequence[Follow] = (),
        owner: str | None = None,
        origin: str | None = None,
        record_frames: bool = False,
        hello: bool = True,
        resume: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        contest: str | None = None,
    ) -> AgonClient:
        """Open a connection and say hello (following ``follow``), unless ``hello`` is False. The URL names the
        contest followed when there is one (``contest``, or the only one of ``follow``), for the proxy's affinity."""
        client = cls(url, origin=origin, record_frames=record_frames, resume=resume)
        client.owner = owner
        try:
            await client._open(timeout, [contest] if contest else [f.contest for f in follow if f.contest])
            if hello:
                await client.hello(follow, timeout=timeout)
        except BaseException:
            await client.close()  # and no resuming in the background
            raise
        return client

    async def _open(self, timeout: float, contests: Sequence[str] = ()) -> None:
        self._last_word = None
        self._ws = await connect(
            affinity_url(self.url, contests),
            origin=None if self.origin is None else self.origin,  # type: ignore[arg-type]
            max_size=2**24,
            compression=None,
            open_timeout=timeout,
            close_timeout=2,
        )
        self._reader = asyncio.get_running_loop().create_task(self._read(self._ws))

    async def hello(self, follow: Sequence[Follow] = (), *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """The first frame: follow contests (raises Refusal for the first one refused, after all are answered)."""
        if any(f.contest is None for f in follow):
            raise ValueError("follow: this client names the contest of every follow")
        waits = [self._expect_welcome(f.contest, f.token) for f in follow if f.contest is not None]
        await self._send(Hello(follow=list(follow), owner=self.owner, client="agon-python"))
        if waits:
            await self._gather(waits, timeout)
        else:  # nothing to welcome: a pong says the server took the hello (a refused connection raises its word)
            await self.ping(timeout=timeout)

    async def reconnect(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """A new connection that resumes every followed contest from the last version seen (a closed client
        opens again: asked for, a reconnection is wanted)."""
        self._closed = False
        await self._reconnect(timeout)

    async def _reconnect(self, timeout: float) -> None:
        await self._drop()
        resumes = self.core.resumes()
        await self._open(timeout, [f.contest for f in resumes if f.contest])
        await self.hello(resumes, timeout=timeout)

    async def _resume_with_backoff(self) -> None:
        """Reconnect until it works (waits doubling from ``backoff[0]`` up to ``backoff[1]``, with jitter)."""
        wait, longest = self.backoff
        while not self._closed:
            await asyncio.sleep(wait * random.uniform(0.5, 1.0))
            try:
                await self._reconnect(DEFAULT_TIMEOUT)  # not reopening a client closed meanwhile
                log.info("resumed %s", ", ".join(self.mirrors) or "the connection")
                return
            except Refusal as error:
                if error.code not in PERMANENT:
                    log.info("cannot resume yet: %s", error)
                    wait = min(wait * 2, longest)
                elif self.mirrors:
                    return  # the other contests were resumed on this connection
                else:
                    log.warning("cannot resume: %s", error)
                    await self.close()
                    return
            except (OSError, TimeoutError, Disconnected, InvalidHandshake) as error:
                log.info("cannot resume yet: %s", error)
                wait = min(wait * 2, longest)

    async def close(self) -> None:
        self._closed = True
        resuming, self._resuming = self._resuming, None
        if resuming is not None and resuming is not asyncio.current_task():
            resuming.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await resuming
        if self._ws is not None:
            await self._ws.close()
        await self._drop()
        for _, queue in self._queues:
            queue.put_nowait(_CLOSED)

    def abort(self) -> None:
        """Kill the socket without a closing handshake (as a crash or a lost network would)."""
        if self._ws is not None and self._ws.transport is not None:
            self._ws.transport.abort()

    async def _drop(self) -> None:
        ws, reader = self._ws, self._reader
        self._ws, self._reader = None, None
        if ws is not None:
            ws.transport.abort()
        if reader is not None and reader is not asyncio.current_task():  # closing from the reader itself
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader

    @property
    def closed(self) -> bool:
        """Closed: by ``close()``, or by itself when nothing it followed can be resumed any more."""
        return self._closed

    @property
    def close_code(self) -> int | None:
        return None if self._ws is None else self._ws.close_code

    async def wait_closed(self, timeout: float = DEFAULT_TIMEOUT) -> int | None:
        """Wait for the server to close the connection; its close code."""
        if self._ws is None:
            return None
        async with asyncio.timeout(timeout):
            await self._ws.wait_closed()
        return self._ws.close_code

    # --- requests -----------------------------------------------------------------------------------

    async def follow(
        self, contest: str, token: str, after: int | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> ContestMirror:
        waiting = self._expect_welcome(contest, token)
        await self._send(FollowContest(contest=contest, token=token, after=after))
        async with asyncio.timeout(timeout):
            return await waiting

    async def unfollow(self, contest: str) -> None:
        self.core.forget(contest)
        await self._send(Unfollow(contest=contest))

    async def command(
        self, contest: str, command: Command, *, id: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> Ack:
        """Send a command; its ack (raises a Refusal subclass with the server's code when refused)."""
        id = id or uuid.uuid4().hex
        answer: Ack = await self._request(id, Execute(id=id, contest=contest, command=command), timeout)
        return answer

    async def create(
        self, request: CreateContest, *, create_key: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> Created:
        id = uuid.uuid4().hex
        created: Created = await self._request(id, Create(id=id, contest=request, create_key=create_key), timeout)
        self.owner = created.invitations.owner
        return created

    async def contests(self, *, timeout: float = DEFAULT_TIMEOUT) -> list[ContestSummary]:
        id = uuid.uuid4().hex
        answer: Contests = await self._request(id, ListContests(id=id), timeout)
        return answer.contests

    async def invite(self, contest: str, seat: str, *, timeout: float = DEFAULT_TIMEOUT) -> Invited:
        """GM: a new invitation for a player seat, ``~spectator`` or ``~auditor`` (the older ones are revoked)."""
        id = uuid.uuid4().hex
        invited: Invited = await self._request(id, Invite(id=id, contest=contest, seat=seat), timeout)
        return invited

    async def timeline(
        self,
        contest: str,
        *,
        at: int | None = None,
        viewer: str = "gm",
        after: int | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> Timeline:
        """GM or auditor: the log as ``viewer`` saw it, its view at ``at``, and the verification of the log;
        with ``after`` (an earlier answer's ``head``), only what is new since and the entries it revised."""
        id = uuid.uuid4().hex
        request = GetTimeline(id=id, contest=contest, at=at, viewer=viewer, after=after)
        answer: Timeline = await self._request(id, request, timeout)
        return answer

    async def say(
        self, contest: str, text: str, to: str | None = None, *, id: str | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> TalkLine:
        """Say a line of table talk to a followed contest (``to``: whisper it to that seat — a player to the GM's,
        the GM to a player's; ``/roll 2d6+1`` rolls dice); the line as stored (raises a Refusal subclass with
        the server's ``talk/...`` code when refused)."""
        id = id or uuid.uuid4().hex
        said: Said = await self._request(id, Say(id=id, contest=contest, text=text, to=to), timeout)
        return said.line

    def talk(self, contest: str) -> list[TalkLine]:
        """The table talk of ``contest`` received so far (the history after the welcome, then each new line),
        oldest first: what this seat may read."""
        mirror = self.mirrors.get(contest)
        return [] if mirror is None else list(mirror.talk)

    async def next_line(self, contest: str, after: int | None = None, timeout: float = DEFAULT_TIMEOUT) -> TalkLine:
        """The first line of ``contest``'s table talk numbered after ``after`` (default: the last one received)."""
        seen = self.talk(contest)
        last = after if after is not None else seen[-1].n if seen else 0

        def newer() -> TalkLine | None:
            return next((line for line in self.talk(contest) if line.n > last), None)

        await self.wait_for(lambda: newer() is not None, timeout)
        line = newer()
        assert line is not None
        return line

    def on_talk(self, listener: Callable[[str, TalkLine], None]) -> Callable[[], None]:
        """Call ``listener(contest, line)`` for every new line of table talk; returns a function to stop."""
        self._talk_listeners.append(listener)
        return lambda: self._talk_listeners.remove(listener)

    async def ping(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        nonce = next(self._nonces)
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pongs[nonce] = waiter
        await self._send(Ping(nonce=nonce))
        async with asyncio.timeout(timeout):
            await waiter

    async def resync(self, contest: str) -> None:
        await self._send(Resync(contest=contest))

    async def send_raw(self, data: str | bytes) -> None:
        """Send any frame as it is (for testing how the server takes bad input)."""
        if self._ws is None:
            raise Disconnected("not connected")
        await self._ws.send(data)

    # --- changes of the view -------------------------------------------------------------------------

    def on_change(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(mirror)`` after every change of any followed view; returns a function to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def on_notice(self, listener: Callable[[Notice], None]) -> Callable[[], None]:
        """Call ``listener(notice)`` for every notice (a readable line per event); returns a function to stop."""
        self._notice_listeners.append(listener)
        return lambda: self._notice_listeners.remove(listener)

    def on_lost(self, listener: LostListener) -> Callable[[], None]:
        """Call ``listener(contest, refusal)`` when a contest is refused for good (its invitation revoked or
        expired, a bad token, the contest gone); returns a function to stop."""
        self._lost_listeners.append(listener)
        return lambda: self._lost_listeners.remove(listener)

    def on_presence(self, listener: Callable[[str, Presence], None]) -> Callable[[], None]:
        """Call ``listener(contest, presence)`` whenever who is at a followed contest's table changes; returns a
        function to stop."""
        self._presence_listeners.append(listener)
        return lambda: self._presence_listeners.remove(listener)

    def presence(self, contest: str) -> Presence | None:
        """Who is at the table of ``contest`` now: each seat and whether someone holds it, how many spectators
        watch (the last ``presence`` frame; None before the first, or for a contest not followed)."""
        mirror = self.mirrors.get(contest)
        return None if mirror is None else mirror.presence

    async def next_presence(self, contest: str, timeout: float = DEFAULT_TIMEOUT) -> Presence:
        """The next ``presence`` frame of ``contest``: who is at its table once that changes."""
        seen = self._presences.get(contest, 0)
        await self.wait_for(lambda: self._presences.get(contest, 0) > seen, timeout)
        presence = self.presence(contest)
        assert presence is not None
        return presence

    async def wait_presence(
        self, contest: str, predicate: Callable[[Presence], bool], timeout: float = DEFAULT_TIMEOUT
    ) -> Presence:
        """Wait until who is at the table of ``contest`` satisfies ``predicate`` (now, or after a later frame)."""

        def there() -> bool:
            presence = self.presence(contest)
            return presence is not None and predicate(presence)

        await self.wait_for(there, timeout)
        presence = self.presence(contest)
        assert presence is not None
        return presence

    async def changes(self, contest: str | None = None) -> AsyncIterator[ContestMirror]:
        """The view of ``contest`` (or of each contest) now, then at every change, until the client is closed.

        Each item is the mirror, whose ``doc`` is the latest view: a slow consumer may see a later view
        than the change that woke it, never an older one. When ``contest`` (without one: the last contest
        followed) is refused for good, the iteration ends by raising that refusal (an ``AuthRefusal`` or a
        ``ContestRefusal``)."""
        if contest is not None and contest in self.lost:
            raise self.lost[contest]
        queue: asyncio.Queue[ContestMirror | Refusal] = asyncio.Queue()
        for mirror in self.mirrors.values():
            if mirror.in_sync and contest in (None, mirror.contest):
                queue.put_nowait(mirror)
        entry = (contest, queue)
        self._queues.append(entry)
        try:
            while True:
                item = await queue.get()
                if isinstance(item, Refusal):
                    raise item
                if item is _CLOSED:
                    return
                yield item
        finally:
            self._queues.remove(entry)

    def _changed_view(self, mirror: ContestMirror) -> None:
        for listener in list(self._listeners):
            try:
                listener(mirror)
            except Exception:
                log.exception("a view listener failed")
        for contest, queue in self._queues:
            if contest is None or contest == mirror.contest:
                queue.put_nowait(mirror)

    # --- waiting ------------------------------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = DEFAULT_TIMEOUT) -> None:
        """Wait until ``predicate()`` holds after some message (TimeoutError otherwise)."""
        async with asyncio.timeout(timeout):
            while not predicate():
                await self._changed.wait()

    async def wait_version(self, contest: str, version: int, timeout: float = DEFAULT_TIMEOUT) -> ContestMirror:
        """Wait until this client's view of ``contest`` is in sync at ``version`` or later."""

        def there() -> bool:
            mirror = self.mirrors.get(contest)
            return mirror is not None and mirror.in_sync and mirror.version >= version

        await self.wait_for(there, timeout)
        return self.mirrors[contest]

    async def next_error(self, timeout: float = DEFAULT_TIMEOUT) -> Error:
        """The next error that answers no request."""
        seen = len(self.errors)
        await self.wait_for(lambda: len(self.errors) > seen, timeout)
        return self.errors[seen]

    # --- internals ----------------------------------------------------------------------------------

    async def _send(self, message: Any) -> None:
        if self._ws is None or self._closed:
            raise Disconnected("not connected")
        try:
            await self._ws.send(encode(message), text=True)
        except ConnectionClosed as closed:
            reader = self._reader
            if reader is not None and reader is not asyncio.current_task():
                await asyncio.wait([reader], timeout=DEFAULT_TIMEOUT)  # it reads what came before the close
            raise _why_closed(self._last_word, closed.rcvd.code if closed.rcvd else None) from None

    def _expect_welcome(self, contest: str, token: str) -> asyncio.Future[ContestMirror]:
        self.core.expect(contest, token)
        waiter: asyncio.Future[ContestMirror] = asyncio.get_running_loop().create_future()
        self._following[contest] = waiter
        return waiter

    async def _request(self, id: str, message: Any, timeout: float) -> Any:
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[id] = waiter
        try:
            await self._send(message)
            async with asyncio.timeout(timeout):
                return await waiter
        finally:
            self._pending.pop(id, None)

    async def _gather(self, waits: Sequence[asyncio.Future[ContestMirror]], timeout: float) -> None:
        if not waits:
            return
        async with asyncio.timeout(timeout):
            results = await asyncio.gather(*waits, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _read(self, ws: ClientConnection) -> None:
        last_word: Error | None = None
        try:
            async for frame in ws:
                text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
                if self.record_frames:
                    self.frames.append(text)
                outputs = self.core.receive(text)
                for output in outputs:
                    await self._act(output)
                said = [o.error for o in outputs if isinstance(o, Refused) and o.id is None and o.contest is None]
                last_word = said[-1] if said else None
                if self._ws is ws:
                    self._last_word = last_word
                self._notify()
        except ConnectionClosed:
            pass
        finally:
            self._fail_pending(_why_closed(last_word, ws.close_code))
            self._notify()
            if self.resume and not self._closed and self._ws is ws and self._resuming is None:
                self._resuming = asyncio.get_running_loop().create_task(self._resume())

    async def _resume(self) -> None:
        try:
            await self._resume_with_backoff()
        finally:
            self._resuming = None

    def _fail_pending(self, error: Exception) -> None:
        for waiter in [*self._pending.values(), *self._following.values(), *self._pongs.values()]:
            if not waiter.done():
                waiter.set_exception(error)
                waiter.exception()  # retrieved: nobody may be waiting any more
        self._pending.clear()
        self._following.clear()
        self._pongs.clear()

    async def _act(self, output: Any) -> None:
        match output:
            case Send(message=message):
                await self._send(message)
            case Welcomed(mirror=mirror):
                self._resolve(self._following.pop(mirror.contest, None), mirror)
            case Changed(mirror=mirror):
                self._changed_view(mirror)
            case Noticed(notice=notice):
                for listener in list(self._notice_listeners):
                    try:
                        listener(notice)
                    except Exception:
                        log.exception("a notice listener failed")
            case Answered(id=id, message=message):
                self._resolve(self._pending.pop(id, None), message)
            case Refused(error=error):
                self._error(error)
            case Ponged(nonce=nonce):
                self._resolve(self._pongs.pop(nonce, None), None)
            case Present(mirror=mirror):
                self._presences[mirror.contest] = self._presences.get(mirror.contest, 0) + 1
                for presence_listener in list(self._presence_listeners):
                    try:
                        if mirror.presence is not None:
                            presence_listener(mirror.contest, mirror.presence)
                    except Exception:
                        log.exception("a presence listener failed")
            case Heard(mirror=mirror, lines=lines):
                for line in lines:
                    for talk_listener in list(self._talk_listeners):
                        try:
                            talk_listener(mirror.contest, line)
                        except Exception:
                            log.exception("a talk listener failed")
            case Lost(contest=contest, error=error):
                self._lose(contest, refusal(error))
            case Close():
                if self.resume:  # it lives for its contests (a joined table); a bare connection is its owner's
                    log.warning("nothing left to follow: closing")
                    await self.close()
            case _:
                raise AssertionError(f"unknown output {output!r}")

    def _lose(self, contest: str, refused: Refusal) -> None:
        self.lost[contest] = refused
        log.warning("lost %s: %s", contest, refused)
        for listener in list(self._lost_listeners):
            try:
                listener(contest, refused)
            except Exception:
                log.exception("a lost-contest listener failed")
        for wanted, queue in self._queues:
            if wanted == contest or (wanted is None and not self.mirrors):
                queue.put_nowait(refused)

    def _error(self, error: Error) -> None:
        if error.id is not None and error.id in self._pending:
            self._reject(self._pending.pop(error.id), error)
        elif error.id is None and error.contest is not None and error.contest in self._following:
            self._reject(self._following.pop(error.contest), error)
        else:
            self.errors.append(error)

    @staticmethod
    def _resolve(waiter: asyncio.Future[Any] | None, value: Any) -> None:
        if waiter is not None and not waiter.done():
            waiter.set_result(value)

    @staticmethod
    def _reject(waiter: asyncio.Future[Any], error: Error) -> None:
        if not waiter.done():
            waiter.set_exception(refusal(error))


def _why_closed(last_word: Error | None, code: int | None) -> Exception:
    """What a request the connection closed under raises: the server's refusal of the connection when it said
    why right before closing it with 1008 (an ``error`` answering nothing: ``protocol/wrong_path``, no
    ``hello``), else ``Disconnected`` (also after ``rate/limited``: the client may resume)."""
    if last_word is not None and code == CloseCode.POLICY_VIOLATION:
        refused = refusal(last_word)
        if not isinstance(refused, RetryLater):
            return refused
    return Disconnected(f"connection closed ({code if code is not None else 'no close frame'})")
