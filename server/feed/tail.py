"""A contest's feed, below the sockets: one store subscription per contest with local followers — so appends
made by any process arrive the same way — each record folded into the feed's own copy of the contest, and at the
end of every stored batch the batch published (``_publish``: what the feed's owner does with it), the resume
ring told, and whoever waits for that version woken.

Everything that touches the feed's state between two awaits runs without awaiting, so a follower that attaches
sees each version exactly once: its welcome (and catch-up patch) describe the head at the moment it is
registered, and every later batch reaches it as a live patch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Sequence
from typing import Any

from protocol.codec import decode
from protocol.common import Seat
from protocol.events import Envelope
from server.ending import ended
from server.engine.contest import Contest, apply, fold, needs_history
from server.engine.ruleset import Ruleset
from server.engine.views import Sight
from server.feed.ring import ResumeRing, Ring
from server.feed.waiters import Waiters
from server.service import ContestService
from server.store.port import EventStore, StoreError

log = logging.getLogger(__name__)

Batch = list[tuple[Envelope, Any]]
"""A stored batch's envelopes, each with the ruleset's state before it."""


class RefoldBudget:
    """How many events one frame may still refold to resume its follows (shared by a hello's follows)."""

    def __init__(self, events: int) -> None:
        self.left = events

    def take(self, events: int) -> bool:
        if events > self.left:
            return False
        self.left -= events
        return True


class ContestTail:
    """Tails, folds and remembers one contest; a subclass publishes each stored batch to its followers."""

    def __init__(
        self,
        contest: str,
        service: ContestService,
        store: EventStore,
        *,
        resume_ring: int,
        refold_limit: int,
        ack_wait: float,
    ) -> None:
        self.contest = contest
        self._service = service
        self._store = store
        self._refold_limit = refold_limit
        self._resume_ring = resume_ring
        self._ack_wait = ack_wait
        self._ring = ResumeRing(resume_ring, refold_limit)
        self._recent: deque[tuple[Envelope, Any]] = deque(maxlen=4 * resume_ring)
        self._waiters = Waiters()
        self._pending: Batch = []
        self._task: asyncio.Task[None] | None = None
        self._resyncing = asyncio.Lock()
        self._rules: Ruleset[Any]
        self._state: Contest[Any]  # the head as published: always the end of a stored batch
        self._folding: Contest[Any]  # the head as read (may be inside a batch)

    # --- what the owner does ------------------------------------------------------------------------

    def _deliver(self, batch: Batch, previous: Contest[Any], state: Contest[Any]) -> dict[Sight, Ring]:
        """Publish a stored batch taking the contest from ``previous`` to ``state``; return each sight's patch
        for the resume ring."""
        return {}

    def _reloaded(self) -> None:
        """The contest was loaded again from the store (its former history is gone)."""

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the contest (Refused ``contest/not_found`` if there is none) and start tailing it."""
        self._rules, self._state = await self._service.load(self.contest)
        self._folding = self._state
        self._ring.remember(self._state, {})
        await self._recall()
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"feed:{self.contest}")

    async def _recall(self) -> None:
        """Keep the log's newest events (at most ``_recent.maxlen``), so a viewer who arrives later gets the
        story so far as notices. Each needs the state before it, folded from the start or the stored snapshot:
        never more than ``refold_limit`` events before the story; when the story's start is further than that
        from both, the story is what follows the snapshot (the viewer is told how many earlier events exist)."""
        head = self._state.version
        first = max(0, head - (self._recent.maxlen or 0))  # the story is the events after ``first``
        start: Contest[Any] | None = None
        if first > 0:
            snapshot = await self._service.snapshot(self.contest)
            usable = snapshot if snapshot is not None and snapshot.version <= head else None
            if usable is not None and usable.version <= first:
                start = usable
            if first - (start.version if start is not None else 0) > self._refold_limit:
                if usable is None or usable.version <= first:
                    return
                start, first = usable, usable.version
        since = start.version if start is not None else 0
        envelopes = [decode(r.data, Envelope) for r in await self._store.read(self.contest, since, limit=head - since)]
        if start is not None and needs_history(start, envelopes):
            # An undo, redo or rewind after the snapshot needs the history the snapshot left out: fold the log
            # from the start when that is within the limit, else tell only how many events there are.
            if head > self._refold_limit:
                return
            start = None
            envelopes = [decode(r.data, Envelope) for r in await self._store.read(self.contest, 0, limit=head)]
        contest = start
        for envelope in envelopes:
            before = (
                contest.rules
                if contest is not None
                else self._rules.initial(self._state.created.setup, self._state.created.seats)
            )
            contest = fold(self._rules, [envelope], contest)
            if envelope.version > first:
                self._recent.append((envelope, before))

    async def stop(self) -> None:
        if self._task is not None:
            await ended(self._task)
        self._waiters.release()

    @property
    def version(self) -> int:
        return int(self._state.version)

    def generation(self, seat: str) -> int:
        """The invitation generation of ``seat`` honoured now (older tokens are revoked)."""
        return int(self._state.generation(seat))

    @property
    def generations(self) -> dict[str, int]:
        """Each re-issued seat's invitation generation honoured now (a seat not named: 0)."""
        return dict(self._state.generations)

    @property
    def seats(self) -> Sequence[Seat]:
        seats: Sequence[Seat] = self._state.created.seats
        return seats

    # --- the tail -------------------------------------------------------------------------------------

    async def _run(self) -> None:
        backoff = 0.05
        while True:
            try:
                known = self._known
                async for record in self._store.subscribe(self.contest, after=self._folding.version, known=known):
                    if record.version <= self._folding.version:
                        continue  # offered by this process's own append already
                    envelope = decode(record.data, Envelope)
                    if needs_history(self._folding, [envelope]):
                        await self._load_history()
                    self._take(envelope)
                    backoff = 0.05
                return  # the store was closed
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("feed of %s interrupted, resubscribing in %.2fs: %s", self.contest, backoff, error)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)
                with contextlib.suppress(Exception):
                    if await self._service.check_lost(self.contest, self._state.version, self._state.head_hash):
                        await self._reload()

    async def _load_history(self) -> None:
        """Undo, redo and rewind need the history a snapshot leaves out: load it (once per feed)."""
        folding = self._folding
        full = await self._service.with_history(self.contest, self._rules, folding)
        if self._folding is folding:  # nothing was taken meanwhile (``offer`` waits for what needs it)
            self._folding = full
            if self._state is folding:
                self._state = full

    def _known(self) -> int:
        return int(self._folding.version)

    def _take(self, envelope: Envelope, folded: Contest[Any] | None = None) -> None:
        """Fold an envelope in (``folded``: the contest it leads to, when the caller has folded it already)."""
        before = self._folding.rules
        self._folding = apply(self._rules, self._folding, envelope) if folded is None else folded
        self._pending.append((envelope, before))
        if envelope.batch_end:
            self._publish()

    def offer(self, envelopes: Sequence[Envelope], before: Contest[Any], states: Sequence[Contest[Any]]) -> None:
        """A batch this process has just appended, taking the contest from ``before`` through ``states`` (the
        contest after each of its events): publish it now. Versions already taken are skipped; a batch beyond a
        gap is left to the store's subscription, which reads everything in order. When this feed holds
        ``before`` itself, it takes each event's state rather than folding the batch again (folding is
        deterministic, and a second fold of the same contest would copy its command index)."""
        if self._task is None or self._task.done() or needs_history(self._folding, envelopes):
            return  # the subscription brings it, once the history is loaded
        same = self._folding is before
        for envelope, state in zip(envelopes, states, strict=True):
            if envelope.version == self._folding.version + 1 and envelope.prev_hash == self._folding.head_hash:
                self._take(envelope, state if same else None)

    async def resync(self) -> None:
        """The stream lost versions this feed published: start again from what the store holds, and send
        every follower a fresh view (their copies describe a history that is gone). A store that drops out
        again meanwhile (Redis restarting after a crash) is tried again until it answers: the feed never
        stays stopped. One resync at a time, so the feed never runs twice."""
        async with self._resyncing:
            if self._task is not None:
                await ended(self._task)
            backoff = 0.05
            while True:
                try:
                    await self._reload()
                    break
                except StoreError as error:
                    log.warning("resync of %s failed, again in %.2fs: %s", self.contest, backoff, error)
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 2.0)
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"feed:{self.contest}")

    async def _reload(self) -> None:
        self._service.forget(self.contest)
        self._rules, self._state = await self._service.load(self.contest)
        self._folding = self._state
        self._pending = []
        self._ring.clear()
        self._recent.clear()
        self._ring.remember(self._state, {})
        self._reloaded()
        self._waiters.reached(self._state.version)

    def _publish(self) -> None:
        batch, self._pending = self._pending, []
        state, previous = self._folding, self._state
        patches = self._deliver(batch, previous, state)
        self._state = state
        self._ring.remember(state, patches)
        self._recent.extend(batch)
        self._waiters.reached(state.version)

    async def reached(self, version: int, timeout: float) -> bool:
        """Wait until the feed has published ``version`` (True), or ``timeout`` seconds (False). While the feed
        reloads a contest whose store lost events, its version is of the lost history: it is waited out."""
        if self._holds(version):
            return True
        await self._waiters.wait(version, timeout)
        return self._holds(version)

    def _holds(self, version: int) -> bool:
        """Whether ``version`` is published, on a history the store still holds (not while reloading after a loss)."""
        return self.version >= version and not self._resyncing.locked()

    async def _base(self, after: int, budget: RefoldBudget) -> Contest[Any] | None:
        """The contest at ``after`` if it is the end of a stored batch this feed can still reach cheaply."""
        if after > self.version:
            # The client saw a version this process has not published yet (another process is ahead).
            if await self._store.head(self.contest) < after:
                return None
            if not await self.reached(after, self._ack_wait):
                return None
        base = self._ring.checkpoints.get(after)
        limit = self._refold_limit
        if base is not None or self.version - after > limit:
            return base  # beyond the distance bound: a fresh view
        # Refold from the nearest state at or before ``after``: a checkpoint in memory, the stored
        # snapshot, or the start — never more than ``refold_limit`` events.
        start = next((c for v, c in reversed(self._ring.checkpoints.items()) if v <= after), None)
        if after - (start.version if start else 0) > self._resume_ring:
            snapshot = await self._service.snapshot(self.contest)
            if snapshot is not None and (start.version if start else 0) < snapshot.version <= after:
                start = snapshot
        since = start.version if start else 0
        if after - since > limit or not budget.take(after - since):
            return None  # a fresh view costs less than this refold
        records = await self._store.read(self.contest, since, limit=after - since)
        envelopes = [decode(r.data, Envelope) for r in records]
        if len(envelopes) != after - since or (envelopes and not envelopes[-1].batch_end):
            return None
        if start is not None and needs_history(start, envelopes):
            return None  # a fresh view costs less than loading the history
        if start is None:
            return fold(self._rules, envelopes)
        return fold(self._rules, envelopes, start) if envelopes else start
