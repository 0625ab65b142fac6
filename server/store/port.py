"""The EventStore port: what every backend (sqlite, redis, memory) promises.

A contest is one stream of records, versions 1..N, gapless. Records are opaque bytes to the store; the
engine has already placed the version inside them (the hash chain covers it), so the store only checks
that a batch continues the stream where the caller expected.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol

import msgspec

from server.store.shard import Shard
from server.store_error import StoreError as StoreError

SIBLING = "~"
"""A contest's sibling streams (its table talk) are named ``<contest>~<name>``: contest ids never hold ``~``. Every
backend keeps them with their contest (on Redis, in its hash tag's slot), removes them with it, and never lists
them among ``contests_page()``."""


def sibling(contest: str, name: str) -> str:
    """The stream ``name`` kept beside ``contest`` (e.g. its table talk)."""
    return f"{contest}{SIBLING}{name}"


def is_sibling(stream: str) -> bool:
    return SIBLING in stream


CONTEST_PAGE = 500
"""How many contest ids one page of the contest list holds unless the caller asks for fewer."""


class Record(msgspec.Struct, frozen=True):
    """One stored event: its version in the contest, its unique id, its encoded envelope, and the two ends
    of its link in the hash chain (``prev_hash``: the hash of the event before it)."""

    version: int
    event_id: str
    data: bytes
    hash: str = ""
    prev_hash: str = ""


class Snapshot(msgspec.Struct, frozen=True):
    """A cache of the folded state at a version. Deleting every snapshot must change nothing."""

    version: int
    data: bytes


class ConflictError(StoreError):
    """The stream is not at the expected version: reload and decide again.

    ``tail``: when the stream had simply moved on, the records after the expected version that the store
    returned with the refusal (at most ``CONFLICT_TAIL`` of them; empty when it could not say), so that the
    writer that lost the race can decide again without another round trip."""

    code = "store/conflict"

    def __init__(self, message: str, tail: Sequence[Record] = ()) -> None:
        super().__init__(message)
        self.tail = list(tail)


CONFLICT_TAIL = 64
"""The most records a ConflictError carries: a writer further behind reads the stream."""


class DuplicateError(StoreError):
    """Some, but not all, event ids of a batch are already stored: nothing was written."""

    code = "store/duplicate"


class BadBatchError(StoreError):
    """The batch is malformed: empty, or its versions do not continue from the expected version."""

    code = "store/bad_batch"


class UnavailableError(StoreError):
    """The backend cannot be reached."""

    code = "store/unavailable"


class BehindError(StoreError):
    """A subscription's backend came back without versions its reader holds (restarted behind, or a lagging
    replica took over): the reader checks what it holds against the stream, then subscribes again. Only the
    server's own feeds subscribe, so a client never receives this code: its viewers get a fresh view."""

    code = "store/behind"


class EventStore(Protocol):
    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        """Atomically append ``records`` if the contest is at ``expected_version``.

        ``records[i].version`` must be ``expected_version + 1 + i`` and ``records[i].prev_hash`` the hash of
        the record before it (else BadBatchError). If every event id of the batch is already stored in this
        contest with the very same content, nothing is written and the stored versions of those ids are
        returned (an acknowledged retry); if one of them is stored with other content, ConflictError (a
        different batch took those ids: reload and decide again). If only some ids are stored,
        DuplicateError and nothing is written. Otherwise the stream must be at ``expected_version`` and its
        head's hash must be the batch's ``prev_hash`` (an event stored without a hash matches any), else
        ConflictError. Returns the versions written.
        """
        ...

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        """Records with version > after, in order, at most ``limit``."""
        ...

    async def head(self, contest: str) -> int:
        """The contest's current version (0 when it has no events)."""
        ...

    async def find(self, contest: str, event_id: str) -> int | None:
        """The version of the contest's event with this id, if one is stored."""
        ...

    def subscribe(self, contest: str, after: int = 0, known: Callable[[], int] | None = None) -> AsyncIterator[Record]:
        """Every record with version > after, in order, then new ones as they are appended, forever.

        Never skips and never repeats a version, even when notifications are lost. ``known``: the version
        the reader already holds by other means (its own appends); records up to it may be left out, and
        an append it already holds costs no read. A backend reached again after a lost connection without
        the version the reader holds ends the subscription with ``BehindError``.
        """
        ...

    async def save_snapshot(self, contest: str, snapshot: Snapshot) -> None:
        """Keep ``snapshot`` as the contest's snapshot unless one of a higher version is already kept."""
        ...

    async def load_snapshot(self, contest: str) -> Snapshot | None:
        """The newest snapshot, if any."""
        ...

    async def delete_snapshots(self, contest: str) -> None: ...

    async def save_secret(self, contest: str, name: str, value: bytes) -> None:
        """Server-only data of a contest (e.g. the dice seed), never part of the stream."""
        ...

    async def load_secret(self, contest: str, name: str) -> bytes | None: ...

    async def contests_page(self, after: str = "", limit: int = CONTEST_PAGE) -> list[str]:
        """At most ``limit`` contests with at least one event whose ids sort strictly after ``after``, sorted by
        their UTF-8 bytes (sibling streams are never listed). The caller reads the next page by passing the last
        id it got; a contest created meanwhile is listed if its id sorts after that id. The cost of a page is
        bounded by ``limit``, never by how many contests the store holds."""
        ...

    async def count_contests(self) -> int:
        """How many contests are listed, without reading the list (what a process prints at start)."""
        ...

    async def contests(self) -> list[str]:
        """Every contest with at least one event, sorted: every page of ``contests_page`` in turn. A convenience
        for tools and tests; a server reads pages, or ``count_contests``."""
        listed: list[str] = []
        while True:
            page = await self.contests_page(listed[-1] if listed else "", CONTEST_PAGE)
            listed += page
            if len(page) < CONTEST_PAGE:
                return listed

    async def index_add(self, index: str, member: str) -> None:
        """Add ``member`` to the named set (e.g. the contests of one owner); adding twice changes nothing."""
        ...

    async def index_members(self, index: str) -> list[str]:
        """The members of the named set, sorted (empty for an unknown set)."""
        ...

    async def remove(self, contest: str) -> None:
        """Forget the contest: its events, snapshot, secrets and sibling streams (after an archive). Owners'
        indexes may still name it; they are filtered by the owner secret, which is gone."""
        ...

    async def ping(self) -> None:
        """Raise UnavailableError when the backend is unreachable."""
        ...

    async def ready(self, timeout: float = 2.0) -> list[Shard]:
        """Whether each part of the backend (each Redis Cluster primary holding slots) can be read from and appended
        to now, each probed within ``timeout`` seconds, without changing any contest (``server.store.readiness``)."""
        ...

    def shard(self, contest: str) -> str:
        """The name of the part of the backend holding ``contest``, as ``ready()`` names it (for metrics)."""
        ...

    async def close(self) -> None:
        """Release the backend. Open subscriptions end; any later call raises UnavailableError."""
        ...
