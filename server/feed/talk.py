"""Table talk's feeds: the delivery of each line to the followers who may read it (``server.net.say`` stores a
line and answers it).

One ``TalkFeed`` per contest with local followers tails the contest's talk stream with ``store.subscribe``, so a
line said through any process reaches the followers of this one; a line said here is published at once. Each line
goes only to the followers ``server.talk.may_read`` lets read it: a whisper to every connection of its sender's
seat and of its recipient's, to an auditor only when the contest's setting allows it, and to nobody else — in no
frame, and in no log line (lines are logged by number only, never by their text).

The copy of a line sent to the connection whose ``say`` it answers carries the ``say``'s id: that is the
acknowledgement, sent once the line is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from protocol.codec import encode
from protocol.talk import Said, Talk, TalkLine, TalkSetting
from server.ending import ended
from server.feed.registry import Registry
from server.feed.waiters import Waiters
from server.service import ContestService
from server.store.port import EventStore
from server.talk import HISTORY, may_read, setting_of, talk_stream
from server.talklog import Entry, TalkLog, entry_of

log = logging.getLogger(__name__)


class Follower(Protocol):
    def send(self, frame: bytes) -> None: ...


class Seats(Protocol):
    """The contest's feed, as far as talk needs it: the invitation generation each seat honours now."""

    def generation(self, seat: str) -> int: ...


@dataclass(frozen=True, slots=True)
class Reader:
    """A follower as the talk sees it: its seat (or ``~spectator``, ``~auditor``), role and invitation."""

    principal: str
    role: str
    generation: int
    seats: Seats

    def may_read(self, line: TalkLine, setting: TalkSetting) -> bool:
        if not may_read(line, self.principal, self.role, setting):
            return False
        # A follower whose invitation was re-issued reads nothing more (its contest feed has dropped it already).
        return self.seats.generation(self.principal) == self.generation


class TalkFeed:
    def __init__(self, contest: str, store: EventStore, on_idle: Callable[[TalkFeed], None]) -> None:
        self.contest = contest
        self._store = store
        self._on_idle = on_idle
        self._stream = talk_stream(contest)
        self._setting = TalkSetting()
        self._entries: list[Entry] = []
        self._readers: dict[Follower, Reader] = {}
        self._expected: dict[str, tuple[Follower, str]] = {}  # a say's key -> the connection and id it answers
        self._answered: dict[int, Follower] = {}  # lines answered before they were published here
        self._waiters = Waiters()
        self._task: asyncio.Task[None] | None = None

    @property
    def head(self) -> int:
        return len(self._entries)

    @property
    def idle(self) -> bool:
        return not self._readers and not self._expected

    async def start(self, service: ContestService) -> None:
        _, contest = await service.load(self.contest)  # its feed has loaded it: cached
        self._setting = setting_of(contest.created)
        self._entries = [entry_of(r.data) for r in await self._store.read(self._stream)]
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"talk:{self.contest}")

    async def stop(self) -> None:
        if self._task is not None:
            await ended(self._task)
        self._waiters.release()

    async def _run(self) -> None:
        backoff = 0.05
        while True:
            try:
                async for record in self._store.subscribe(self._stream, after=self.head, known=lambda: self.head):
                    if record.version == self.head + 1:
                        self._take(entry_of(record.data), record.event_id)
                    backoff = 0.05
                return  # the store was closed
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("talk feed of %s interrupted, resubscribing in %.2fs: %s", self.contest, backoff, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)

    # --- lines ----------------------------------------------------------------------------------------------

    def _take(self, entry: Entry, key: str) -> None:
        self._entries.append(entry)
        n = self.head
        answering = self._expected.get(key)
        skip = self._answered.pop(n, None)
        if isinstance(entry, TalkLine):
            plain: bytes | None = None
            for follower, reader in self._readers.items():
                if follower is skip or not reader.may_read(entry, self._setting):
                    continue
                if answering is not None and follower is answering[0]:
                    follower.send(encode(Said(contest=self.contest, line=entry, id=answering[1])))
                    del self._expected[key]  # answered
                    continue
                if plain is None:
                    plain = encode(Said(contest=self.contest, line=entry))
                follower.send(plain)
        self._waiters.reached(n)

    def expect(self, key: str, follower: Follower, id: str) -> None:
        """A ``say`` is being stored: its line, once published, answers ``follower`` with ``id``."""
        self._expected[key] = (follower, id)

    def forget(self, key: str) -> None:
        """Nothing waits for that ``say``'s line any more (answered, refused, or its connection gone)."""
        self._expected.pop(key, None)
        if self.idle:
            self._on_idle(self)

    async def answer(self, follower: Follower, key: str, line: TalkLine, repeated: bool, wait: float) -> None:
        """Publish a line this process stored (unless the talk is not there yet: the subscription brings it in
        order), and make sure its ``said`` with the ``say``'s id reaches ``follower`` (directly, if the line is
        not published within ``wait`` seconds, or was published before)."""
        if not repeated and line.n == self.head + 1:
            self._take(line, key)
        if not repeated and self.head < line.n:
            await self._waiters.wait(line.n, wait)
        answering = self._expected.pop(key, None)
        if answering is not None:  # not published to it with the id: answer it here
            if self.head < line.n:
                self._answered[line.n] = follower  # and the publication skips it
            follower.send(encode(Said(contest=self.contest, line=line, id=answering[1])))
        if self.idle:
            self._on_idle(self)

    # --- followers --------------------------------------------------------------------------------------------

    def attach(self, follower: Follower, principal: str, role: str, generation: int, seats: Seats) -> None:
        """Send the follower the last lines it may read (right after its welcome) and register it for new ones. A
        spectator of a contest that keeps its talk from spectators gets nothing: no ``talk``, never a ``said``."""
        if role == "spectator" and not self._setting.spectators:
            self.detach(follower)
            return
        reader = Reader(principal, role, generation, seats)
        lines: list[TalkLine] = []
        more = False
        for entry in reversed(self._entries):
            if isinstance(entry, TalkLine) and may_read(entry, principal, role, self._setting):
                if len(lines) == HISTORY:
                    more = True
                    break
                lines.append(entry)
        follower.send(encode(Talk(contest=self.contest, lines=lines[::-1], more=more)))
        self._readers[follower] = reader

    def detach(self, follower: Follower) -> None:
        if self._readers.pop(follower, None) is not None and self.idle:
            self._on_idle(self)


class TalkHub(Registry[TalkFeed]):
    """The talk feeds of this process (one per contest with local followers) and the talk log they share."""

    def __init__(self, store: EventStore, service: ContestService, linger: float) -> None:
        self.log = TalkLog(store)

        async def start(contest: str, on_idle: Callable[[TalkFeed], None]) -> TalkFeed:
            feed = TalkFeed(contest, store, on_idle)
            await feed.start(service)
            return feed

        super().__init__(start, linger)
