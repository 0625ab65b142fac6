"""Table talk in the store: a contest's lines in its sibling stream ``<contest>~talk`` (record version = line
number), its talk seed as a store secret, and the talk's part of an export.

Appends go through the same ``EventStore`` port as the contest's events, with the expected head: two processes
saying a line at once never number two lines alike (the one that loses reads the other's line and numbers
its own next). A ``say`` sent again with the same id returns the line it stored the first time.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import msgspec

from protocol import errors
from protocol.codec import decode, encode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import Concluded, ContestCreated, Envelope
from protocol.talk import ExportedLine, RevealedSeed, TalkLine, TalkRoll, WithheldLine
from server.engine.dice import seed_hash
from server.engine.handle import event_id
from server.engine.names import NO_NAMES, Names
from server.service import utc_now
from server.store.port import ConflictError, EventStore, Record
from server.talk import (
    MAX_LINES,
    SEED,
    Kind,
    RateWindow,
    check_talk,
    cleaned,
    committed,
    derived,
    kind_of,
    recipient,
    revealed_by_hash,
    roll_of,
    rolled,
    seed_by_hash,
    setting_of,
    shown_name,
    talk_stream,
)

log = logging.getLogger(__name__)

KINDS: tuple[Kind, ...] = ("table", "whispers")

Entry = TalkLine | int
"""A line of the talk as stored: the line, or the number of a whisper an imported export left out."""


def talk_key(speaker: Actor, command_id: str) -> str:
    """The stored id of what a ``say`` stores: the same for the same ``say`` sent again."""
    return event_id(speaker, command_id, 0)


def entry_of(data: bytes) -> Entry:
    """A stored talk record: a line, or (in an imported contest) the number of a whisper left out."""
    try:
        return decode(data, TalkLine)
    except msgspec.ValidationError:
        return decode(data, WithheldLine).talk_withheld


@dataclass
class _Known:
    """What this process knows of a contest's talk: its last line number, and the seed hash its rolls of each
    kind use (from its first roll of that kind)."""

    head: int = 0
    hashes: dict[Kind, str] = field(default_factory=dict)

    def take(self, entries: Sequence[Entry]) -> None:
        for entry in entries:
            self.head = entry if isinstance(entry, int) else entry.n
            if isinstance(entry, TalkLine) and isinstance(entry.roll, TalkRoll):
                self.hashes.setdefault(kind_of(entry), entry.roll.seed_hash)


@dataclass
class TalkLog:
    store: EventStore
    clock: Callable[[], str] = utc_now
    monotonic: Callable[[], float] = time.monotonic
    entropy: Callable[[int], bytes] = secrets.token_bytes
    rate: RateWindow = field(default_factory=RateWindow)
    max_lines: int = MAX_LINES
    cache_size: int = 1000
    _known: OrderedDict[str, _Known] = field(default_factory=OrderedDict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    _seeds: dict[tuple[str, str], bytes] = field(default_factory=dict)

    # --- saying -------------------------------------------------------------------------------------------

    async def say(
        self,
        contest: str,
        created: ContestCreated,
        version: int,
        concluded: bool,
        speaker: Actor,
        command_id: str,
        text: str,
        to: str | None,
        things: Names = NO_NAMES,
    ) -> tuple[TalkLine, bool]:
        """Store what ``speaker`` (a seat of the contest) says, at the contest's ``version``; the stored line, and
        whether it was stored already (the same ``say`` sent again). Refused with a ``talk/...`` code. ``things``:
        the names of the contest's contestants, for a seat the GM gave no name ("Aria's player")."""
        seat = next((s for s in created.seats if s.id == speaker.principal and s.role == speaker.role), None)
        if seat is None:
            raise Refused(errors.TALK_NOT_ALLOWED, "only the seats at the table speak: spectators and auditors read")
        text = cleaned(text)
        to_seat = recipient(seat, to, created.seats)
        read = roll_of(text)
        if read is not None and concluded:
            raise Refused(errors.TALK_NOT_ALLOWED, "the contest is concluded: its dice are revealed, so no more rolls")
        stream = talk_stream(contest)
        key = talk_key(speaker, command_id)
        async with self._lock(contest):
            known = await self._known_of(contest)
            stalled = 0
            while True:
                n = known.head + 1
                if n > self.max_lines:
                    if (repeat := await self._repeat(stream, key)) is not None:
                        return repeat, True
                    raise Refused(errors.TALK_FULL, f"the table talk of this contest is full ({self.max_lines} lines)")
                self.rate.check(contest, seat.id, self.monotonic())
                line = TalkLine(
                    n=n,
                    from_=seat.id,
                    name=shown_name(seat, things),
                    to=msgspec.UNSET if to_seat is None else to_seat.id,
                    to_name=msgspec.UNSET if to_seat is None else shown_name(to_seat, things),
                    text=text if read is None else read[1],
                    at=self.clock(),
                    version=version,
                    roll=msgspec.UNSET,
                )
                if read is not None:
                    kind = kind_of(line)
                    roll = rolled(read[0], await self._seed(contest, kind, known.hashes.get(kind)), n)
                    line = msgspec.structs.replace(line, roll=roll)
                try:
                    await self.store.append(stream, [Record(version=n, event_id=key, data=encode(line))], known.head)
                except ConflictError as conflict:
                    if await self._catch_up(stream, known, conflict.tail):
                        stalled = 0
                        continue
                    if (repeat := await self._repeat(stream, key)) is not None:
                        return repeat, True
                    stalled += 1
                    if stalled >= 8:
                        why = "the table talk kept changing under this line: send it again"
                        raise Refused(errors.CONFLICT, why) from None
                    continue
                known.take([line])
                self.rate.count(contest, seat.id, self.monotonic())
                return line, False

    async def _repeat(self, stream: str, key: str) -> TalkLine | None:
        """The line a ``say`` with this key stored before, if any."""
        version = await self.store.find(stream, key)
        if version is None:
            return None
        records = await self.store.read(stream, version - 1, limit=1)
        entry = entry_of(records[0].data) if records else None
        return entry if isinstance(entry, TalkLine) else None

    async def _catch_up(self, stream: str, known: _Known, tail: Sequence[Record]) -> bool:
        """Take what other processes said since ``known``; whether anything was new."""
        head = known.head
        if not (tail and tail[0].version == head + 1):
            tail = await self.store.read(stream, head)
        known.take([entry_of(r.data) for r in tail])
        return known.head > head

    async def _known_of(self, contest: str) -> _Known:
        known = self._known.get(contest)
        if known is None:
            known = _Known()
            known.take(await self.entries(contest))
            self._known[contest] = known
            while len(self._known) > self.cache_size:
                evicted, _ = self._known.popitem(last=False)
                lock = self._locks.get(evicted)
                if lock is not None and not lock.locked():
                    del self._locks[evicted]
        self._known.move_to_end(contest)
        return known

    def _lock(self, contest: str) -> asyncio.Lock:
        return self._locks.setdefault(contest, asyncio.Lock())

    # --- the seed -----------------------------------------------------------------------------------------

    async def create_seed(self, contest: str) -> None:
        """A new contest's talk seed (before its first event: nobody can say anything yet)."""
        await self.store.save_secret(contest, SEED, self.entropy(32))

    async def _seed(self, contest: str, kind: Kind, digest: str | None) -> bytes:
        """The seed of ``kind`` rolls: the one whose hash the talk's first such roll shows, else the contest's
        talk seed, made now if it has none (a contest created before table talk). A seed made here is first kept
        under its hashes, which nothing replaces: when two processes make one at once, the roll stored first
        decides which one the contest uses, and the other process finds it by its hash."""
        if digest is not None:
            seed = await self.seed_by_hash(contest, kind, digest)
            if seed is None:
                raise Refused(errors.INTERNAL, "the table talk's dice seed is missing from the store")
            return seed
        master = await self.store.load_secret(contest, SEED)
        if master is None:
            master = self.entropy(32)
            for each in KINDS:
                await self.store.save_secret(contest, seed_by_hash(seed_hash(derived(master, each))), master)
            await self.store.save_secret(contest, SEED, master)
        return derived(master, kind)

    async def seed_by_hash(self, contest: str, kind: Kind, digest: str) -> bytes | None:
        """The seed of ``kind`` rolls whose SHA-256 is ``digest`` (None: the store has none)."""
        cached = self._seeds.get((contest, digest))
        if cached is not None:
            return cached
        for name in (SEED, seed_by_hash(digest)):
            master = await self.store.load_secret(contest, name)
            if master is not None and seed_hash(derived(master, kind)) == digest:
                self._seeds[contest, digest] = derived(master, kind)
                return self._seeds[contest, digest]
        revealed = await self.store.load_secret(contest, revealed_by_hash(digest))  # an imported contest's
        if revealed is not None and seed_hash(revealed) == digest:
            return revealed
        return None

    async def revealed(self, contest: str, lines: Sequence[Entry]) -> dict[str, bytes]:
        """The seeds of the rolls among ``lines``, by hash: what a concluded contest's export reveals."""
        seeds: dict[str, bytes] = {}
        for kind in KINDS:
            digest = committed((e for e in lines if isinstance(e, TalkLine)), kind)
            if digest is not None and (seed := await self.seed_by_hash(contest, kind, digest)) is not None:
                seeds[digest] = seed
        return seeds

    # --- reading, export and import ----------------------------------------------------------------------

    async def entries(self, contest: str) -> list[Entry]:
        """Every stored line of the contest's talk, in order."""
        return [entry_of(r.data) for r in await self.store.read(talk_stream(contest))]

    async def export(self, contest: str, envelopes: Sequence[Envelope]) -> bytes:
        """The talk's JSON lines for an export of the contest whose log is ``envelopes``: every line — a whisper
        only when the contest lets auditors read whispers, else just its number — and, once the contest is
        concluded, the seeds of the exported rolls."""
        created = envelopes[0].event if envelopes else None
        if not isinstance(created, ContestCreated):
            return b""
        whispers = setting_of(created).auditors_whispers
        shown: list[Entry] = []
        for entry in await self.entries(contest):
            shown.append(entry if isinstance(entry, TalkLine) and (whispers or not entry.whisper) else _n(entry))
        out = [encode(ExportedLine(e)) if isinstance(e, TalkLine) else encode(WithheldLine(e)) for e in shown]
        if any(isinstance(e.event, Concluded) for e in envelopes):
            out += [encode(RevealedSeed(seed.hex())) for seed in (await self.revealed(contest, shown)).values()]
        return b"".join(line + b"\n" for line in out)

    async def import_talk(self, contest: str, entries: Sequence[Entry], seeds: Sequence[bytes]) -> None:
        """Store an imported contest's talk as it was exported, and the seeds it reveals."""
        for seed in seeds:
            await self.store.save_secret(contest, revealed_by_hash(seed_hash(seed)), seed)
        stream = talk_stream(contest)
        for start in range(0, len(entries), 500):
            chunk = entries[start : start + 500]
            records = [
                Record(version=start + 1 + i, event_id=f"imported-{start + 1 + i}", data=_stored(e))
                for i, e in enumerate(chunk)
            ]
            await self.store.append(stream, records, start)


def _n(entry: Entry) -> int:
    return entry if isinstance(entry, int) else entry.n


def _stored(entry: Entry) -> bytes:
    return encode(WithheldLine(entry)) if isinstance(entry, int) else encode(entry)


def read_talk(lines: Sequence[bytes], first: int) -> tuple[list[Entry], list[bytes], str | None]:
    """The talk part of an export: its lines and withheld numbers, its revealed seeds, or what is wrong (the file's
    line ``first + i`` for ``lines[i]``)."""
    entries: list[Entry] = []
    seeds: list[bytes] = []
    for i, line in enumerate(lines):
        number = first + i
        try:
            if line.startswith(b'{"talk_seed"'):
                seed = decode(line, RevealedSeed).talk_seed
                seeds.append(bytes.fromhex(seed))
            elif line.startswith(b'{"talk_withheld"'):
                entries.append(decode(line, WithheldLine).talk_withheld)
            else:
                entries.append(decode(line, ExportedLine).talk)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
            return entries, seeds, f"unreadable talk (line {number}): {exc}"
    return entries, seeds, None


def checked(
    entries: Sequence[Entry], seeds: Sequence[bytes], envelopes: Sequence[Envelope]
) -> tuple[int, int, str | None]:
    """``check_talk`` of an export's talk: dice checked, rolls not checkable yet, and the problem if any."""
    report = check_talk(
        entries, {seed_hash(s): s for s in seeds}, any(isinstance(e.event, Concluded) for e in envelopes)
    )
    return report.rolls_checked, report.unchecked, report.problem
