"""What a contest's host sends one relay (``server.feed.relay``): the frames its remote followers get, the answers
to the relay's requests and the followers it dropped, gathered per loop turn into one numbered message."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from typing import Protocol

from server.feed.bus import Bus
from server.feed.relay_wire import Answer, Done, Frames, encoder

log = logging.getLogger(__name__)


class Hosting(Protocol):
    """The host's feed, as its outboxes see it."""

    @property
    def contest(self) -> str: ...

    @property
    def me(self) -> str: ...

    @property
    def bus(self) -> Bus: ...

    @property
    def version(self) -> int: ...

    @property
    def generations(self) -> dict[str, int]: ...

    def relay_gone(self, relay: str) -> None:
        """Nobody listens at ``relay`` any more."""
        ...


class Outbox:
    """What the host sends one relay about one contest: the frames of a loop turn gathered into one message, each
    frame once with the followers it goes to, sent in order by one task."""

    def __init__(self, feed: Hosting, relay: str, seq: Iterator[int]) -> None:
        self._feed = feed
        self.relay = relay
        self._seq = seq  # kept by the feed while it hosts: a relay's numbers never start again
        self._frames: list[tuple[list[int], bytes]] = []
        self._where: dict[int, int] = {}  # id(frame) -> its place in ``_frames``
        self._last: dict[int, int] = {}  # follower -> the place of its last frame
        self._answers: list[Answer] = []
        self._done: list[Done] = []
        self._dropped: list[int] = []
        self._due = False
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self._closing = False

    def frame(self, follower: int, frame: bytes) -> None:
        place = self._where.get(id(frame))
        if place is not None and place > self._last.get(follower, -1):
            self._frames[place][0].append(follower)
        else:
            place = self._where[id(frame)] = len(self._frames)
            self._frames.append(([follower], frame))
        self._last[follower] = place
        self._schedule()

    def answer(self, answer: Answer) -> None:
        self._answers.append(answer)
        self._schedule()

    def done(self, done: Done) -> None:
        self._done.append(done)
        self._schedule()

    def dropped(self, follower: int) -> None:
        self._dropped.append(follower)
        self._schedule()

    def _schedule(self) -> None:
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._due = False
        message = Frames(
            contest=self._feed.contest,
            host=self._feed.me,
            seq=next(self._seq),
            version=self._feed.version,
            generations=self._feed.generations,
            frames=self._frames,
            answers=self._answers,
            done=self._done,
            sent=time.time(),
            dropped=self._dropped,
        )
        self._frames, self._answers, self._done, self._dropped = [], [], [], []
        self._where.clear()
        self._last.clear()
        self._queue.put_nowait(encoder.encode(message))
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while not (self._closing and self._queue.empty()):
            data = await self._queue.get()
            try:
                received = await self._feed.bus.post(self.relay, data)
            except Exception as error:  # the store is away: the relay resyncs when it sees the gap
                log.info("frames for %s not sent to %s: %s", self._feed.contest, self.relay, error)
                continue
            if not received:
                self._feed.relay_gone(self.relay)
                return

    def close(self, *, now: bool = False) -> None:
        """Send what is gathered, then stop (``now``: drop it, nobody listens)."""
        if now:
            if self._sender is not None:
                self._sender.cancel()
            return
        if self._due:
            self._flush()
        self._closing = True
        if self._sender is not None and self._queue.empty():
            self._sender.cancel()  # it waits for nothing more


class Remote:
    """A remote follower, as the host's ``ContestFeed`` sees it: what it is sent goes to its relay's outbox."""

    __slots__ = ("number", "outbox")

    def __init__(self, outbox: Outbox, number: int) -> None:
        self.outbox = outbox
        self.number = number

    def send(self, frame: bytes) -> None:
        self.outbox.frame(self.number, frame)
