"""The presence board in this process: shared by every server using one store object (a ``MemoryStore``, or any
store with no board of its own), as servers on one Redis or one SQLite file share theirs. Nothing outlives the
process, so entries need no expiry."""

from __future__ import annotations

import asyncio
import uuid
import weakref
from collections.abc import Mapping

from server.store.port import UnavailableError
from server.store.presence import TTL, Changed, Here


class _Room:
    """The board of one store: each contest's entries by process, and the boards listening to each contest."""

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, Here]] = {}
        self.listeners: dict[str, set[MemoryBoard]] = {}


_ROOMS: weakref.WeakKeyDictionary[object, _Room] = weakref.WeakKeyDictionary()


class MemoryBoard:
    def __init__(self, store: object, on_change: Changed, *, ttl: float = TTL) -> None:
        self.process = uuid.uuid4().hex
        self.ttl = ttl  # unused: an entry goes with its process
        self._on_change = on_change
        try:
            room = _ROOMS.get(store)
            if room is None:
                room = _ROOMS[store] = _Room()
        except TypeError:  # a store that cannot be referred to weakly: a board of its own
            room = _Room()
        self._room = room
        self._listening: set[str] = set()
        self._closed = False

    async def share(self, contest: str, here: Here | None) -> list[Here]:
        if self._closed:
            raise UnavailableError("presence board is closed")
        entries = self._room.entries.setdefault(contest, {})
        before = entries.get(self.process)
        if here is None:
            entries.pop(self.process, None)
        else:
            entries[self.process] = here
        if not entries:
            del self._room.entries[contest]
        if before != here:
            loop = asyncio.get_running_loop()
            for board in self._room.listeners.get(contest, ()):
                if board is not self:
                    loop.call_soon(board._told, contest)
        return await self.others(contest)

    async def renew(self, held: Mapping[str, Here]) -> dict[str, list[Here]]:
        return {contest: await self.share(contest, here) for contest, here in held.items()}

    async def others(self, contest: str) -> list[Here]:
        if self._closed:
            raise UnavailableError("presence board is closed")
        entries = self._room.entries.get(contest, {})
        return [here for process, here in sorted(entries.items()) if process != self.process]

    def _told(self, contest: str) -> None:
        if not self._closed and contest in self._listening:
            self._on_change(contest)

    def listen(self, contest: str) -> None:
        self._listening.add(contest)
        self._room.listeners.setdefault(contest, set()).add(self)

    def unlisten(self, contest: str) -> None:
        self._listening.discard(contest)
        boards = self._room.listeners.get(contest)
        if boards is not None:
            boards.discard(self)
            if not boards:
                del self._room.listeners[contest]

    async def close(self) -> None:
        for contest in list(self._listening):
            self.unlisten(contest)
        self._closed = True
