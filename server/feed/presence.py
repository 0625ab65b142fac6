"""Presence: who is at each contest's table now, told to the contest's followers on this process.

The connection tells the roster of every follow (``joined``); the contest's feed tells it of every follower that
leaves, however it leaves (unfollowed, closed, its token expired or revoked). For each contest with followers
here the roster keeps who they are, publishes what this process holds on the store's presence board (see
``server.store.presence``) and reads what the other processes hold; merged, that is the ``presence`` frame.

A new follower gets the frame right after its welcome; every follower of the contest gets it again whenever it
changes, at most once per ``gap`` seconds per contest (a room of 50 spectators arriving together costs a few
frames each, not 50). This process's entry on the board is refreshed every ``heartbeat`` seconds, ``RENEWED``
contests to a call of the board, when the other processes' entries are read again too (so a process that died
stops counting once its entry lapses). Nothing of presence is ever appended to a contest's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from protocol.codec import encode
from protocol.common import Seat
from protocol.messages import TokenRole
from protocol.presence import Presence, SeatPresence
from server.feed.followed import FollowedFeed
from server.store.boards import board_for
from server.store.port import EventStore, StoreError
from server.store.presence import TTL, Here, merged

log = logging.getLogger(__name__)

GAP = 0.1
"""At most one presence frame per contest per this many seconds (bursts are told together)."""

CALLS = 8
"""Board calls in flight at once: a heartbeat publishes every contest followed here, and the players' own commands
must not wait behind hundreds of them for the store."""

RENEWED = 64
"""Contests published again in one call of the board at a heartbeat (on SQLite one transaction, on one Redis server
one round trip, instead of one for each)."""

OMNISCIENT: frozenset[TokenRole] = frozenset({"gm", "auditor"})
"""Who is told how many auditors are reading."""


class Follower(Protocol):
    def send(self, frame: bytes) -> None: ...


@dataclass(eq=False)
class _Table:
    """One contest's presence on this process."""

    contest: str
    seats: Sequence[Seat]
    followers: dict[Follower, tuple[str, TokenRole]] = field(default_factory=dict)  # -> (principal, role)
    elsewhere: list[Here] = field(default_factory=list)  # what the other processes hold
    frames: tuple[bytes, bytes] | None = None  # (for players and spectators, for the GM and auditors)
    sent: dict[Follower, bytes] = field(default_factory=dict)  # the last frame each follower got
    timer: asyncio.TimerHandle | None = None
    last: float = float("-inf")  # when its followers were last told (loop time)

    def here(self) -> Here:
        """What this process holds of the contest."""
        seats: set[str] = set()
        spectators = auditors = 0
        for principal, role in self.followers.values():
            if role in ("gm", "player"):
                seats.add(principal)
            elif role == "spectator":
                spectators += 1
            elif role == "auditor":
                auditors += 1
        return Here(seats=sorted(seats), spectators=spectators, auditors=auditors)

    def frame(self, role: TokenRole) -> bytes:
        if self.frames is None:
            everyone = merged([self.here(), *self.elsewhere])
            held = set(everyone.seats)
            seats = [
                SeatPresence(seat=s.id, role=s.role, here=s.id in held, contestants=list(s.contestants), name=s.name)
                for s in self.seats
            ]
            told = Presence(contest=self.contest, seats=seats, spectators=everyone.spectators)
            self.frames = (encode(told), encode(msgspec.structs.replace(told, auditors=everyone.auditors)))
        return self.frames[1] if role in OMNISCIENT else self.frames[0]


class Roster:
    """This process's presence: one per server (its board's name is this process's on the store's board)."""

    def __init__(self, store: EventStore, *, gap: float = GAP, ttl: float = TTL) -> None:
        self._board = board_for(store, self._elsewhere, ttl=ttl)
        self.heartbeat = ttl / 3
        self._gap = gap
        self._tables: dict[str, _Table] = {}
        self._shared: dict[str, Here] = {}  # what this process last published of each contest
        self._locks: dict[str, asyncio.Lock] = {}  # one board call at a time per contest, in order
        self._sharing: set[str] = set()  # contests with a publication queued
        self._looking: set[str] = set()  # contests with a reading queued
        self._calls = asyncio.Semaphore(CALLS)
        self._tasks: set[asyncio.Task[None]] = set()
        self._beat: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def process(self) -> str:
        return self._board.process

    # --- followers ----------------------------------------------------------------------------------

    def joined(self, feed: FollowedFeed, follower: Follower, principal: str, role: TokenRole) -> None:
        """``follower`` follows the feed's contest as ``principal`` (``role``): send it the presence now (right
        after its welcome) and tell the others."""
        if self._closed:
            return
        feed.on_detach = functools.partial(self.left, feed.contest)
        table = self._tables.get(feed.contest)
        if table is None:
            table = self._tables[feed.contest] = _Table(feed.contest, feed.seats)
            self._board.listen(feed.contest)
            self._start_heartbeat()
        table.followers[follower] = (principal, role)
        table.frames = None
        frame = table.frame(role)
        follower.send(frame)
        table.sent[follower] = frame
        self._changed(table)

    def left(self, contest: str, follower: Follower) -> None:
        """``follower`` no longer follows ``contest`` (from the feed's detach)."""
        table = self._tables.get(contest)
        if table is None or table.followers.pop(follower, None) is None:
            return
        table.sent.pop(follower, None)
        table.frames = None
        self._changed(table)

    def _changed(self, table: _Table) -> None:
        """Tell the table's followers soon: at once, or ``gap`` after they were last told."""
        if table.timer is not None or self._closed:
            return
        loop = asyncio.get_running_loop()
        wait = max(0.0, table.last + self._gap - loop.time())
        table.timer = loop.call_later(wait, self._tell, table)

    def _tell(self, table: _Table) -> None:
        table.timer = None
        if self._tables.get(table.contest) is not table:
            return
        table.last = asyncio.get_running_loop().time()
        if not table.followers:
            del self._tables[table.contest]
            self._board.unlisten(table.contest)
            self._share(table.contest)
            return
        if table.here() != self._shared.get(table.contest):
            self._share(table.contest)
        for follower, (_, role) in table.followers.items():
            frame = table.frame(role)
            if table.sent.get(follower) != frame:
                follower.send(frame)
                table.sent[follower] = frame

    # --- the board ----------------------------------------------------------------------------------

    def _share(self, contest: str) -> None:
        if contest not in self._sharing:
            self._sharing.add(contest)
            self._spawn(self._publish(contest))

    async def _publish(self, contest: str) -> None:
        """Publish what this process holds of ``contest`` now (nothing, once it has no follower here)."""
        async with self._lock(contest):
            self._sharing.discard(contest)
            table = self._tables.get(contest)
            here = None if table is None else table.here()
            if here is None and contest not in self._shared:
                return  # never published, or removed already
            try:
                async with self._calls:
                    others = await self._board.share(contest, here)
            except Exception as error:  # the store away: presence is best effort, tried again at the next heartbeat
                log.warning("presence of %s not published (again at the next heartbeat): %s", contest, _why(error))
                return
            if here is None:
                self._shared.pop(contest, None)
            else:
                self._shared[contest] = here
            self._heard(contest, others)

    def _elsewhere(self, contest: str) -> None:
        """Another process changed its entry for ``contest``: read the board again."""
        if contest in self._tables and contest not in self._looking and not self._closed:
            self._looking.add(contest)
            self._spawn(self._look(contest))

    async def _look(self, contest: str) -> None:
        async with self._lock(contest):
            self._looking.discard(contest)
            if contest not in self._tables:
                return
            try:
                async with self._calls:
                    others = await self._board.others(contest)
            except Exception as error:
                log.info("presence of %s not read (again at the next heartbeat): %s", contest, _why(error))
                return
            self._heard(contest, others)

    def _heard(self, contest: str, others: list[Here]) -> None:
        table = self._tables.get(contest)
        if table is not None and others != table.elsewhere:
            table.elsewhere = others
            table.frames = None
            self._changed(table)

    @contextlib.asynccontextmanager
    async def _lock(self, contest: str) -> AsyncIterator[None]:
        lock = self._locks.get(contest)
        if lock is None:
            lock = self._locks[contest] = asyncio.Lock()
        try:
            async with lock:
                yield
        finally:
            if not lock.locked() and contest not in self._sharing and contest not in self._looking:
                self._locks.pop(contest, None)

    def _start_heartbeat(self) -> None:
        if self._beat is None and not self._closed:
            self._beat = asyncio.get_running_loop().call_later(self.heartbeat, self._pulse)

    def _pulse(self) -> None:
        """Publish every contest followed here again (its entry would lapse), and so read the others', ``RENEWED``
        contests to a call of the board."""
        self._beat = None
        contests = list(self._tables)
        for start in range(0, len(contests), RENEWED):
            self._spawn(self._renew(contests[start : start + RENEWED]))
        if self._tables:
            self._start_heartbeat()

    async def _renew(self, contests: list[str]) -> None:
        """Publish these contests again in one call of the board, each under its lock; a contest whose publication
        is queued or under way is left to it (which publishes it anew)."""
        async with contextlib.AsyncExitStack() as locked:
            held: dict[str, Here] = {}
            for contest in contests:
                lock = self._locks.get(contest)
                table = self._tables.get(contest)
                if table is None or contest in self._sharing or (lock is not None and lock.locked()):
                    continue
                await locked.enter_async_context(self._lock(contest))  # free: taken at once
                held[contest] = table.here()
            if not held:
                return
            try:
                async with self._calls:
                    others = await self._board.renew(held)
            except Exception as error:  # the store away: presence is best effort, tried again at the next heartbeat
                log.warning(
                    "presence of %d contests not published (again at the next heartbeat): %s", len(held), _why(error)
                )
                return
            for contest, here in held.items():
                self._shared[contest] = here
                self._heard(contest, others.get(contest, []))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- shutdown -----------------------------------------------------------------------------------

    async def close(self, timeout: float = 1.0) -> None:
        """Remove this process's entries from the board (best effort: they lapse anyway) and stop."""
        if self._closed:
            return
        self._closed = True
        if self._beat is not None:
            self._beat.cancel()
        for table in self._tables.values():
            if table.timer is not None:
                table.timer.cancel()
        self._tables.clear()
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(timeout):
                for contest in list(self._shared):
                    await self._board.share(contest, None)
        self._shared.clear()
        await self._board.close()


def _why(error: Exception) -> str:
    return error.message if isinstance(error, StoreError) else f"{type(error).__name__}: {error}"
