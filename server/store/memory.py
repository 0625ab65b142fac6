"""An in-memory EventStore for unit tests: same contract, nothing survives the process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence

from server.store.batch import check_batch, check_head, check_retry
from server.store.fanout import PAGE, Bell, tail
from server.store.port import (
    CONFLICT_TAIL,
    CONTEST_PAGE,
    ConflictError,
    DuplicateError,
    EventStore,
    Record,
    Snapshot,
    UnavailableError,
    is_sibling,
    sibling,
)
from server.store.readiness import Shard, problem_of


class MemoryStore(EventStore):
    """Every method runs without awaiting, so each call is atomic on the event loop."""

    def __init__(self) -> None:
        self._events: dict[str, list[Record]] = {}
        self._ids: dict[str, dict[str, int]] = {}
        self._snapshots: dict[str, Snapshot] = {}
        self._secrets: dict[tuple[str, str], bytes] = {}
        self._indexes: dict[str, set[str]] = {}
        self._bell = Bell()
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise UnavailableError("store is closed")

    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        self._check_open()
        check_batch(records, expected_version)
        ids = self._ids.setdefault(contest, {})
        events = self._events.setdefault(contest, [])
        stored = [events[ids[r.event_id] - 1] for r in records if r.event_id in ids]
        if stored and len(stored) == len(records):
            return check_retry(contest, stored, records)
        if stored:
            raise DuplicateError(f"{len(stored)} of {len(records)} event ids are already in {contest}")
        if len(events) != expected_version:
            raise ConflictError(
                f"{contest} is at version {len(events)}, not {expected_version}",
                events[expected_version : expected_version + CONFLICT_TAIL],
            )
        check_head(contest, events[-1].hash if events else "", records)
        events.extend(records)
        ids.update((r.event_id, r.version) for r in records)
        self._bell.ring(contest, len(self._events[contest]))
        return [r.version for r in records]

    async def find(self, contest: str, event_id: str) -> int | None:
        self._check_open()
        return self._ids.get(contest, {}).get(event_id)

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        self._check_open()
        events = self._events.get(contest, [])
        start = max(after, 0)
        end = len(events) if limit is None else min(len(events), start + max(limit, 0))
        return events[start:end]

    async def head(self, contest: str) -> int:
        self._check_open()
        return len(self._events.get(contest, []))

    def subscribe(self, contest: str, after: int = 0, known: Callable[[], int] | None = None) -> AsyncIterator[Record]:
        return tail(
            lambda since: self.read(contest, since, PAGE),
            lambda: self._bell.ticket(contest),
            lambda: self._closed,
            after,
            poll=None,
            known=known,
            head=lambda: self._bell.head(contest),
        )

    async def save_snapshot(self, contest: str, snapshot: Snapshot) -> None:
        self._check_open()
        current = self._snapshots.get(contest)
        if current is None or current.version <= snapshot.version:
            self._snapshots[contest] = snapshot

    async def load_snapshot(self, contest: str) -> Snapshot | None:
        self._check_open()
        return self._snapshots.get(contest)

    async def delete_snapshots(self, contest: str) -> None:
        self._check_open()
        self._snapshots.pop(contest, None)

    async def save_secret(self, contest: str, name: str, value: bytes) -> None:
        self._check_open()
        self._secrets[contest, name] = value

    async def load_secret(self, contest: str, name: str) -> bytes | None:
        self._check_open()
        return self._secrets.get((contest, name))

    async def contests_page(self, after: str = "", limit: int = CONTEST_PAGE) -> list[str]:
        self._check_open()
        return sorted(c for c in self._listed() if c > after)[: max(limit, 0)]

    async def count_contests(self) -> int:
        self._check_open()
        return sum(1 for _ in self._listed())

    def _listed(self) -> Iterator[str]:
        return (contest for contest, events in self._events.items() if events and not is_sibling(contest))

    async def index_add(self, index: str, member: str) -> None:
        self._check_open()
        self._indexes.setdefault(index, set()).add(member)

    async def index_members(self, index: str) -> list[str]:
        self._check_open()
        return sorted(self._indexes.get(index, ()))

    async def remove(self, contest: str) -> None:
        self._check_open()
        streams = [contest, *(s for s in self._events if s.startswith(sibling(contest, "")))]
        for stream in streams:
            self._events.pop(stream, None)
            self._ids.pop(stream, None)
            self._snapshots.pop(stream, None)
        for key in [key for key in self._secrets if key[0] in streams]:
            del self._secrets[key]

    async def ping(self) -> None:
        self._check_open()

    async def ready(self, timeout: float = 2.0) -> list[Shard]:
        try:
            self._check_open()
        except UnavailableError as error:
            return [Shard("memory", problem_of(error))]
        return [Shard("memory")]

    def shard(self, contest: str) -> str:
        return "memory"

    async def close(self) -> None:
        self._closed = True
        self._bell.ring_all()
