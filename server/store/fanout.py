"""In-process wake-ups for tailing readers, and the tail loop the embedded backends share."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

from server.store.port import Record, UnavailableError

PAGE = 256
"""How many records a tailing reader fetches per read."""


class Bell:
    """One wake-up per contest: take a ticket, read, then wait on the ticket.

    A ticket taken before a read is rung by any append that finishes after it, so a reader that found
    nothing new cannot miss the append that happens between its read and its wait.
    """

    def __init__(self) -> None:
        self._tickets: dict[str, asyncio.Event] = {}
        self._heads: dict[str, int] = {}  # the newest head rung for each contest with a waiting reader

    def ticket(self, contest: str) -> asyncio.Event:
        return self._tickets.setdefault(contest, asyncio.Event())

    def head(self, contest: str) -> int | None:
        """The newest head announced with a ring since the last ring without one (None: unknown)."""
        return self._heads.get(contest)

    def ring(self, contest: str, head: int | None = None) -> None:
        if head is None:
            self._heads.pop(contest, None)
        elif contest in self._tickets or contest in self._heads:
            self._heads[contest] = max(head, self._heads.get(contest, 0))
        ticket = self._tickets.pop(contest, None)
        if ticket is not None:
            ticket.set()

    def forget(self, contest: str) -> None:
        self._heads.pop(contest, None)

    def ring_all(self) -> None:
        tickets, self._tickets = self._tickets, {}
        self._heads.clear()
        for ticket in tickets.values():
            ticket.set()


async def tail(
    read: Callable[[int], Awaitable[list[Record]]],
    ticket: Callable[[], asyncio.Event],
    closed: Callable[[], bool],
    after: int,
    poll: float | None,
    known: Callable[[], int] | None = None,
    head: Callable[[], int | None] | None = None,
) -> AsyncIterator[Record]:
    """Yield every record after ``after``, then wait for the bell (or ``poll`` seconds) and read again.

    Reading is the source of truth: a wake-up only says "read now", so a lost or early wake-up costs at
    most one poll interval, never a record. Ends when the store is closed. With ``known`` (what the
    reader holds already) and ``head`` (the head the bell last announced), a wake-up for an append the
    reader holds already costs no read.
    """
    first = True
    while not closed():
        wake = ticket()
        if known is not None:
            after = max(after, known())
            rung = head() if head is not None else None
            if not first and rung is not None and rung <= after:
                await _rung(wake, poll)
                continue
        first = False
        try:
            batch = await read(after)
        except UnavailableError:
            if closed():
                return
            raise
        for record in batch:
            after = record.version
            yield record
        if len(batch) < PAGE and not closed():
            await _rung(wake, poll)


async def _rung(wake: asyncio.Event, poll: float | None) -> None:
    """Wait for the bell, or at most ``poll`` seconds (with no poll, without a timer: on Python 3.11 each
    ``asyncio.timeout`` asks for the running loop and the current task, a ``getpid`` system call each, and
    a reader that follows a busy contest waits once per append)."""
    if poll is None:
        await wake.wait()
        return
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(poll):
            await wake.wait()
