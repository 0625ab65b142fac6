"""The application service: load (snapshot + tail) → the engine's step → append with expected version.

The only place where the pure engine meets the store. A command id seen before returns the result of its
first execution, never a second effect; a conflicting writer makes us reload and decide again. What this
process appends is handed to its local feed at once (``on_appended``); other processes' appends arrive
through ``store.subscribe``, which also fills any gap.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

import msgspec

from protocol import errors
from protocol.codec import decode, encode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import CONTEST_ID_PATTERN, Command, CreateContest, Envelope
from protocol.views import ContestView
from server.engine.contest import Contest, fold, needs_history, restored, trimmed
from server.engine.dice import seed_hash
from server.engine.handle import event_id
from server.engine.ruleset import Ruleset
from server.engine.step import Decided, Decision, NeedsHistory, Repeated, StaleLink, draws_salt, opening, step
from server.engine.views import contest_view, viewer_for
from server.logs import Second
from server.rulesets import ruleset as ruleset_named
from server.store.port import CONTEST_PAGE, ConflictError, DuplicateError, EventStore, Record, Snapshot
from server.talk import SEED as TALK_SEED

log = logging.getLogger(__name__)


def seed_secret(committed_hash: str) -> str:
    """The store secret holding a dice seed, named by its hash so racing creators never clobber each other."""
    return f"dice_seed:{committed_hash}"


def utc_now() -> str:
    """Now, as ``datetime.now(UTC).isoformat(timespec="milliseconds")`` writes it, its whole second formatted
    once a second (every event is stamped)."""
    ms = time.time_ns() // 1_000_000
    return f"{_utc_second(ms // 1000)}.{ms % 1000:03d}+00:00"


_utc_second = Second("%Y-%m-%dT%H:%M:%S", time.gmtime)


@dataclass(frozen=True)
class Result:
    """What a command did: the version its batch ended at, and the envelopes it appended (none on a retry)."""

    contest: str
    version: int
    envelopes: Sequence[Envelope] = ()
    repeated: bool = False


class _SnapshotBlob(msgspec.Struct, frozen=True):
    ruleset: str
    contest: msgspec.Raw
    commands: msgspec.Raw | None = None
    """The command index, in snapshots written before they left it out (``trimmed``): decoded when a command
    arrives (serving viewers needs none of it)."""


@dataclass
class ContestService:
    store: EventStore
    snapshot_every: int = 50
    max_attempts: int = 12
    """Conflicts in a row that bring no event from another writer before a command is refused
    (``store/conflict``)."""
    busy_for: float = 10.0
    """Seconds a command keeps deciding again while other processes keep appending to its contest: each
    conflict that brings their events is progress, however long their run of wins."""
    clock: Callable[[], str] = utc_now
    entropy: Callable[[int], bytes] = secrets.token_bytes
    cache_size: int = 1000
    """Contests kept folded in memory, least recently used evicted (reloaded from snapshot + tail)."""
    _cache: OrderedDict[str, tuple[Ruleset[Any], Contest[Any]]] = field(default_factory=OrderedDict)
    _seeds: dict[str, bytes | None] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    _read_only: dict[str, bool] = field(default_factory=dict)
    _background: set[asyncio.Task[None]] = field(default_factory=set)
    _stored_commands: dict[str, msgspec.Raw] = field(default_factory=dict)
    """The command index of a contest loaded from a snapshot, until a command needs it."""
    lost: dict[str, int] = field(default_factory=dict)
    """Contests whose store came back without events this process had seen acknowledged: how many."""
    on_lost: Callable[[str, int], None] | None = None
    on_appended: Callable[[str, Sequence[Envelope], Contest[Any], Sequence[Contest[Any]]], None] | None = None
    """Called with every batch this process appended, as soon as it is stored, with the contest before it and
    the contest after each of its events: the local feed publishes it at once, without folding it again (other
    processes learn of it through the store's subscription)."""

    # --- commands -----------------------------------------------------------------------------------

    async def create(self, actor: Actor, request: CreateContest, command_id: str = "create") -> Result:
        """Open a contest. The actor must hold one of its GM seats."""
        rules = ruleset_named(request.ruleset)
        contest_id = request.contest or uuid.uuid4().hex[:12]
        if re.fullmatch(CONTEST_ID_PATTERN, contest_id) is None:
            raise Refused(errors.BAD_SETUP, "contest: ids are 1-64 letters, digits, '-' or '_'")
        if actor.role != "gm" or not any(s.id == actor.principal and s.role == "gm" for s in request.seats):
            raise Refused(errors.FORBIDDEN, "only a GM holding one of the contest's GM seats may create it")
        if await self.store.head(contest_id) > 0:
            raise Refused(errors.CONTEST_EXISTS, f"contest: {contest_id!r} already exists")
        seed = self.entropy(32) if request.dice == "server" else None
        opened = opening(
            rules, contest_id, request, actor, command_id, now=self.clock(), seed_hash=seed_hash(seed) if seed else None
        )
        envelopes = opened.envelopes
        if seed is not None:
            await self.store.save_secret(contest_id, seed_secret(seed_hash(seed)), seed)
        await self.store.save_secret(contest_id, TALK_SEED, secrets.token_bytes(32))  # for /roll in the table talk
        try:
            await self.store.append(contest_id, _records(envelopes), expected_version=0)
        except ConflictError:
            raise Refused(errors.CONTEST_EXISTS, f"contest: {contest_id!r} already exists") from None
        self._seeds[contest_id] = seed
        self._read_only[contest_id] = False
        self._keep(contest_id, (rules, opened.after))
        return Result(contest_id, opened.version, envelopes)

    async def execute(
        self, contest_id: str, actor: Actor, command_id: str, command: Command, generation: int | None = None
    ) -> Result:
        """Decide and durably append; raises Refused with a stable code, changing nothing.

        ``generation``: the invitation generation of the actor's link, when it came with one. It is checked
        against the contest the command is decided on, which is the head it is appended on (the append
        expects that version), so a link re-issued by any process never writes after its re-issue."""
        if await self.read_only(contest_id):
            raise Refused(errors.READ_ONLY, "contest: an imported contest can be replayed, never changed")
        async with self._lock(contest_id):
            trust_cache = True
            stalled, deadline = 0, time.monotonic() + self.busy_for
            while stalled < self.max_attempts and time.monotonic() < deadline:
                # Decide on the cached state without reading the stream first: if another process appended
                # meanwhile, the append's expected version conflicts and we reload and decide again.
                cached = self._cache.get(contest_id) if trust_cache else None
                if cached is not None:
                    self._cache.move_to_end(contest_id)
                rules, contest = cached or await self.load(contest_id)
                self._with_commands(contest_id, contest)
                seed = await self._seed(contest)
                decided = self._step(rules, contest, seed, actor, command_id, command, generation)
                match decided:
                    case Decided():
                        pass  # appended below
                    case Repeated(version=version):
                        # Sent again (its ack went missing): answered from the index while the store still
                        # holds the head cached here; a store that came back without it is reported, then asked.
                        if not await self.check_lost(contest_id, contest.version, contest.head_hash):
                            return Result(contest_id, version, repeated=True)
                        trust_cache = False
                        continue
                    case StaleLink():
                        if cached is not None:  # this process may not have seen the re-issue (or the new link) yet
                            trust_cache = False
                            continue
                        if (repeat := await self._repeat(contest_id, contest, actor, command_id)) is not None:
                            return repeat
                        raise Refused(
                            errors.REVOKED, "token: this invitation was re-issued by the GM; ask for the new link"
                        )
                    case Refused():
                        if cached is None:
                            if (repeat := await self._repeat(contest_id, contest, actor, command_id)) is not None:
                                return repeat
                            raise decided
                        # Refused on the cached state: another process may have moved the contest on. Refuse
                        # only what the stored contest refuses.
                        trust_cache = False
                        stalled += 1
                        continue
                    case NeedsHistory():
                        # A command from before the snapshot the contest was restored from is not in its
                        # index: the store is asked only when deciding or appending fails (a repeat's event ids
                        # are stored), not for every command; and before the history is loaded again for an
                        # undo, redo or rewind, once per process (the contest is kept with it).
                        if (repeat := await self._repeat(contest_id, contest, actor, command_id)) is not None:
                            return repeat
                        self._keep(contest_id, (rules, await self.with_history(contest_id, rules, contest)))
                        continue
                    case _:
                        assert_never(decided)
                envelopes = decided.envelopes
                try:
                    written = await self.store.append(contest_id, _records(envelopes), contest.version)
                except DuplicateError:
                    if (repeat := await self._repeat(contest_id, contest, actor, command_id)) is not None:
                        return repeat
                    raise
                except ConflictError as conflict:
                    # Another writer got there first, or the store lost what we hold: catch up and decide
                    # again. The store's refusal carries what the winner appended, so the writer that lost
                    # is ready again as soon as the winner is. It can still lose many races in a row (on
                    # SQLite, the writer that just committed is the likelier to take the lock again): a
                    # conflict that brought another writer's events is progress, not a failed attempt. One
                    # that brought nothing may be a repeat's event ids, stored with other content.
                    caught = await self._catch_up(contest_id, rules, contest, conflict.tail)
                    if caught is not None and caught.version > contest.version:
                        stalled = 0
                    elif (repeat := await self._repeat(contest_id, contest, actor, command_id)) is not None:
                        return repeat
                    else:
                        stalled += 1
                    trust_cache = True
                    continue
                if written != [e.version for e in envelopes]:
                    return Result(contest_id, max(written), repeated=True)
                folded = decided.after
                self._remember(contest_id, rules, folded)
                if self.on_appended is not None:
                    self.on_appended(contest_id, envelopes, contest, decided.states)
                return Result(contest_id, decided.version, envelopes)
        raise Refused(errors.CONFLICT, "the contest kept changing under this command: try again")

    def _step(
        self,
        rules: Ruleset[Any],
        contest: Contest[Any],
        seed: bytes | None,
        actor: Actor,
        command_id: str,
        command: Command,
        generation: int | None,
    ) -> Decision[Any] | Refused:
        """The engine's step with this moment's inputs; a refusal as a value, for the loop to weigh."""
        try:
            return step(
                rules,
                contest,
                actor,
                command_id,
                command,
                generation=generation,
                now=self.clock(),
                seed=seed,
                # Only a declaration commits to anything: other commands draw no randomness (a system call).
                salt=self.entropy(16).hex() if draws_salt(command) else "",
            )
        except Refused as refused:
            return refused

    # --- reading ------------------------------------------------------------------------------------

    async def load(self, contest_id: str) -> tuple[Ruleset[Any], Contest[Any]]:
        """The contest as of the store's head: cache or snapshot, plus the tail of the stream."""
        cached = self._cache.get(contest_id)
        if cached is None:
            stored = await self._from_snapshot(contest_id)
            if stored is not None:
                rules, contest, commands = stored
                cached = (rules, contest)
                if commands:
                    self._stored_commands[contest_id] = commands
        after = cached[1].version if cached else 0
        tail = [decode(r.data, Envelope) for r in await self.store.read(contest_id, after=after)]
        if cached is None:
            if not tail:
                raise Refused(errors.NO_SUCH_CONTEST, f"contest: no contest {contest_id!r}")
            rules = ruleset_named(_created_ruleset(tail[0]))
            cached = (rules, fold(rules, tail))
        elif tail:
            cached = (cached[0], await self._folded(contest_id, cached[0], cached[1], tail))
        self._keep(contest_id, cached)
        return cached

    async def head(self, contest_id: str) -> int:
        """The version of the contest's newest stored event (0: none)."""
        return await self.store.head(contest_id)

    async def with_history(self, contest_id: str, rules: Ruleset[Any], contest: Contest[Any]) -> Contest[Any]:
        """``contest`` with its effective history, which a snapshot leaves out: the log up to its version
        folded again (only undo, redo and rewind need it; replays fold the log themselves)."""
        if not contest.elided:
            return contest
        records = await self.store.read(contest_id, after=0, limit=contest.version)
        full = fold(rules, [decode(r.data, Envelope) for r in records])
        if full.version != contest.version or full.head_hash != contest.head_hash:
            raise Refused(
                errors.INTERNAL, f"contest: the stored log of {contest_id!r} no longer holds version {contest.version}"
            )
        return full

    async def _folded(
        self, contest_id: str, rules: Ruleset[Any], contest: Contest[Any], envelopes: Sequence[Envelope]
    ) -> Contest[Any]:
        """``envelopes`` folded onto ``contest``, its history loaded first when they undo, redo or rewind."""
        if needs_history(contest, envelopes):
            contest = await self.with_history(contest_id, rules, contest)
        return fold(rules, envelopes, contest)

    async def read_only(self, contest_id: str) -> bool:
        """Whether the contest was imported (``agon import``): it is kept as it was, and refuses every command."""
        if contest_id not in self._read_only:
            self._read_only[contest_id] = await self.store.load_secret(contest_id, IMPORTED) is not None
        return self._read_only[contest_id]

    async def import_log(self, envelopes: Sequence[Envelope]) -> str:
        """Store a verified exported log as it is, read-only; the contest's id. Refused when it exists."""
        contest_id = envelopes[0].contest
        if await self.store.head(contest_id) > 0:
            raise Refused(errors.CONTEST_EXISTS, f"contest: {contest_id!r} already exists in this store")
        await self.store.save_secret(contest_id, IMPORTED, b"1")
        try:
            await self.store.append(contest_id, _records(envelopes), expected_version=0)
        except ConflictError:
            raise Refused(errors.CONTEST_EXISTS, f"contest: {contest_id!r} already exists in this store") from None
        self._read_only[contest_id] = True
        return contest_id

    async def view(self, contest_id: str, actor: Actor) -> ContestView:
        rules, contest = await self.load(contest_id)
        return contest_view(rules, contest, viewer_for(actor, contest.created.seats))

    async def events(self, contest_id: str, after: int = 0) -> list[Envelope]:
        return [decode(r.data, Envelope) for r in await self.store.read(contest_id, after=after)]

    async def contests(self, after: str = "", limit: int = CONTEST_PAGE) -> list[str]:
        """One page of the store's contests: at most ``limit`` ids after ``after``, sorted."""
        return await self.store.contests_page(after, limit)

    async def drain(self) -> None:
        """Wait for background work (snapshots) to finish: call before closing the store."""
        while self._background:
            await asyncio.gather(*self._background)

    async def snapshot(self, contest_id: str) -> Contest[Any] | None:
        """The contest as of its stored snapshot (None without a usable one), without its command index."""
        loaded = await self._from_snapshot(contest_id)
        return None if loaded is None else loaded[1]

    async def save_snapshot(self, contest_id: str) -> int:
        """Write a snapshot of the contest as it is now (the version it is at)."""
        rules, contest = await self.load(contest_id)
        await self._snapshot(contest_id, rules, contest)
        return int(contest.version)

    def forget(self, contest_id: str) -> None:
        """Drop the cached state (the next load uses the snapshot and the stream)."""
        self._cache.pop(contest_id, None)
        self._stored_commands.pop(contest_id, None)

    def _with_commands(self, contest_id: str, contest: Contest[Any]) -> None:
        """Complete the command index of a contest loaded from a snapshot with the snapshot's part. The index
        is shared along the contest's lineage, and every entry in the snapshot is older than any contest of
        it, so adding them in place keeps each contest the value it was."""
        stored = self._stored_commands.pop(contest_id, None)
        if stored is not None:
            for key, version in decode(stored, dict[str, int]).items():
                contest.commands.setdefault(key, version)

    async def _repeat(self, contest_id: str, contest: Contest[Any], actor: Actor, command_id: str) -> Result | None:
        """The first result of a command that ran before the snapshot ``contest`` was restored from (whose
        command index leaves it out): its first event found in the store by its id (ids are derived from the
        command), the batch's end read from there. None for a contest restored from no snapshot."""
        if not contest.indexed_after:
            return None
        first = await self.store.find(contest_id, event_id(actor, command_id, 0))
        if first is None or first > contest.indexed_after:
            return None  # never ran, or after the snapshot: the index knows it (or the append will conflict)
        records = await self.store.read(contest_id, after=first - 1, limit=_BATCH_PAGE)
        while records:
            for record in records:
                if decode(record.data, Envelope).batch_end:
                    return Result(contest_id, record.version, repeated=True)
            records = await self.store.read(contest_id, after=records[-1].version, limit=_BATCH_PAGE)
        return None  # the log ends inside the batch (never: batches are stored whole)

    @property
    def cached(self) -> int:
        """How many contests are folded in memory (at most ``cache_size``)."""
        return len(self._cache)

    def _keep(self, contest_id: str, loaded: tuple[Ruleset[Any], Contest[Any]]) -> None:
        self._cache[contest_id] = loaded
        self._cache.move_to_end(contest_id)
        while len(self._cache) > max(self.cache_size, 1):
            evicted, _ = self._cache.popitem(last=False)
            self._seeds.pop(evicted, None)
            self._stored_commands.pop(evicted, None)
            self._read_only.pop(evicted, None)
            lock = self._locks.get(evicted)
            if lock is not None and not lock.locked():
                del self._locks[evicted]

    async def _catch_up(
        self, contest_id: str, rules: Ruleset[Any], contest: Contest[Any], tail: Sequence[Record]
    ) -> Contest[Any] | None:
        """Fold what other writers appended after ``contest`` into the cache: ``tail`` (from the refusal)
        when it chains onto ``contest``, else what one read of the stream brings, which also checks that the
        stream still holds ``contest``'s head; when it does not, report the loss and drop the cache. The
        contest caught up, or None when the cache was dropped. A read that fails leaves the cache as it was:
        what this process saw acknowledged is checked again on the next conflict, never forgotten unchecked."""
        if contest.version <= 0:
            self.forget(contest_id)
            return None
        if not (tail and tail[0].version == contest.version + 1 and tail[0].prev_hash == contest.head_hash):
            records = await self.store.read(contest_id, after=contest.version - 1)
            if not _holds(records, contest.head_hash):
                await self._report_lost(contest_id, contest.version)  # reads the head: may fail, changing nothing
                self.forget(contest_id)
                return None
            tail = records[1:]
        envelopes = [decode(r.data, Envelope) for r in tail]
        caught = await self._folded(contest_id, rules, contest, envelopes) if envelopes else contest
        self.forget(contest_id)
        self._keep(contest_id, (rules, caught))
        return caught

    async def check_lost(self, contest_id: str, version: int, head_hash: str) -> bool:
        """Whether the stream no longer holds ``version`` with ``head_hash`` — events this process saw
        acknowledged are gone (a store restored behind, a lagging replica). Reported loudly: an error in the
        log, ``lost`` (metric and ``/healthz``), and the ``on_lost`` hook; and the cached state is dropped (its
        command index would answer a lost command sent again as already done)."""
        if version <= 0:
            return False
        if _holds(await self.store.read(contest_id, after=version - 1, limit=1), head_hash):
            return False
        await self._report_lost(contest_id, version)
        self.forget(contest_id)
        return True

    async def _report_lost(self, contest_id: str, version: int) -> None:
        head = await self.store.head(contest_id)
        missing = max(version - head, 1)
        self.lost[contest_id] = self.lost.get(contest_id, 0) + missing
        log.error(
            "STORE LOST ACKNOWLEDGED EVENTS: contest %s was at version %d here; the store now has %d%s",
            contest_id,
            version,
            head,
            "" if head < version else " with another history",
        )
        if self.on_lost is not None:
            self.on_lost(contest_id, missing)

    # --- internals ----------------------------------------------------------------------------------

    def _lock(self, contest_id: str) -> asyncio.Lock:
        return self._locks.setdefault(contest_id, asyncio.Lock())

    async def _seed(self, contest: Contest[Any]) -> bytes | None:
        committed = contest.created.seed_hash
        if committed is None:
            return None
        if contest.id not in self._seeds:
            seed = await self.store.load_secret(contest.id, seed_secret(committed))
            if seed is None or seed_hash(seed) != committed:
                raise Refused(errors.INTERNAL, "the contest's dice seed is missing from the store")
            self._seeds[contest.id] = seed
        return self._seeds[contest.id]

    async def seed(self, contest_id: str) -> bytes | None:
        """The secret dice seed (server dice), for operators and tests; never sent to a client."""
        _, contest = await self.load(contest_id)
        return await self._seed(contest)

    def _remember(self, contest_id: str, rules: Ruleset[Any], contest: Contest[Any]) -> None:
        previous = self._cache.get(contest_id)
        self._keep(contest_id, (rules, contest))
        before = previous[1].version if previous else 0
        if self.snapshot_every > 0 and contest.version // self.snapshot_every > before // self.snapshot_every:
            task = asyncio.get_running_loop().create_task(self._snapshot(contest_id, rules, contest))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _snapshot(self, contest_id: str, rules: Ruleset[Any], contest: Contest[Any]) -> None:
        blob = encode(_SnapshotBlob(ruleset=rules.name, contest=msgspec.Raw(encode(trimmed(contest)))))
        try:
            await self.store.save_snapshot(contest_id, Snapshot(version=contest.version, data=blob))
        except Exception:  # a snapshot is a cache: losing one changes nothing
            log.exception("snapshot of %s at %d failed", contest_id, contest.version)

    async def _from_snapshot(self, contest_id: str) -> tuple[Ruleset[Any], Contest[Any], msgspec.Raw | None] | None:
        """The contest as of its stored snapshot, and the command index of a snapshot written before they left
        it out, still encoded (decoded when needed)."""
        snapshot = await self.store.load_snapshot(contest_id)
        if snapshot is None:
            return None
        try:
            blob = decode(snapshot.data, _SnapshotBlob)
            rules = ruleset_named(blob.ruleset)
            contest = restored(msgspec.json.decode(blob.contest, type=Contest[rules.state_type]))  # type: ignore[name-defined]
        except (msgspec.DecodeError, msgspec.ValidationError, Refused):
            log.warning("ignoring an unreadable snapshot of %s", contest_id)
            return None
        if not _holds(await self.store.read(contest_id, after=snapshot.version - 1, limit=1), contest.head_hash):
            # The stream does not hold the snapshot's head (it came back behind): the snapshot is of a lost history.
            log.warning("ignoring a snapshot of %s at %d that the stream does not hold", contest_id, snapshot.version)
            return None
        return rules, contest, blob.commands


_BATCH_PAGE = 16
"""Events read at a time to find where a stored command's batch ends."""

IMPORTED = "imported"
"""The store secret marking an imported (read-only) contest."""


def _records(envelopes: Sequence[Envelope]) -> list[Record]:
    return [
        Record(version=e.version, event_id=e.event_id, data=encode(e), hash=e.hash, prev_hash=e.prev_hash)
        for e in envelopes
    ]


def _holds(records: Sequence[Record], head_hash: str) -> bool:
    """Whether ``records`` (read from a version on) start with the event whose hash is ``head_hash``."""
    return bool(records) and (not records[0].hash or records[0].hash == head_hash)


def _created_ruleset(envelope: Envelope) -> str:
    from protocol.events import ContestCreated

    if not isinstance(envelope.event, ContestCreated):
        raise Refused(errors.INTERNAL, f"contest {envelope.contest!r} does not start with its creation")
    return envelope.event.ruleset
