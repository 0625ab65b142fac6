"""The presence board: where each server process sharing a store tells the others who is at each contest's table
on it, and learns who is at the others.

Each process (one board, named at random when it starts) publishes, per contest it has followers of, what it holds
(``Here``: the seats held by at least one of its connections, and how many spectators and auditors it serves),
and reads what every other live process published. An entry lasts ``ttl`` seconds unless published again, so a
process that dies without a word stops counting within ``ttl``; the server publishes again every third of it.
A change is told to the other processes listening to that contest at once (``on_change(contest)``), after which
they read the board again: a notification only says "read now", and a lost one costs at most a heartbeat.

Nothing of presence is ever appended to a contest's stream. One implementation per backend:
``presence_memory`` (in-process, shared by the servers of one ``MemoryStore``), ``presence_sqlite`` (a table
in the store's file, watched like its events) and ``presence_redis`` (a hash per contest in the contest's slot,
and a pub/sub channel); ``server.store.boards.board_for`` picks the one that goes with a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import msgspec

TTL = 12.0
"""Seconds an entry lasts unless published again (a killed process stops counting within this)."""

Changed = Callable[[str], None]
"""Told the contest whose presence another process changed (read the board again)."""


class Here(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What one process holds of one contest: the seats at least one of its connections follows with (sorted),
    and how many of its connections follow as spectators and as auditors."""

    seats: list[str] = []
    spectators: int = 0
    auditors: int = 0


class PresenceBoard(Protocol):
    """One process's view of the board (see the module's docstring)."""

    process: str
    """This process's name on the board: random, chosen when the board is made."""

    async def share(self, contest: str, here: Here | None) -> list[Here]:
        """Publish what this process holds of ``contest`` (None: nothing any more, and its entry goes) for
        ``ttl`` seconds, tell the processes listening to it when that changed something, and return what every
        other live process holds of it. Raises ``StoreError`` when the backend cannot be reached."""
        ...

    async def renew(self, held: Mapping[str, Here]) -> dict[str, list[Here]]:
        """``share`` of every contest in ``held`` (the heartbeat: entries lapse unless published again), in as few
        round trips as the backend allows; what every other live process holds of each."""
        ...

    async def others(self, contest: str) -> list[Here]:
        """What every other live process holds of ``contest``."""
        ...

    def listen(self, contest: str) -> None:
        """Call ``on_change(contest)`` whenever another process changes its entry for ``contest``."""
        ...

    def unlisten(self, contest: str) -> None: ...

    async def close(self) -> None:
        """Stop listening (the entries this process published are its owner's to remove, with ``share``)."""
        ...


def merged(entries: Sequence[Here]) -> Here:
    """The union of the seats held anywhere and the sums of spectators and auditors."""
    seats: set[str] = set()
    for entry in entries:
        seats.update(entry.seats)
    return Here(
        seats=sorted(seats),
        spectators=sum(entry.spectators for entry in entries),
        auditors=sum(entry.auditors for entry in entries),
    )
