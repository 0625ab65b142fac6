"""Live fan-out: one store subscription per contest with local viewers, one view per sight.

A ``ContestFeed`` tails the contest's stream with ``store.subscribe`` — so appends made by any process
reach local viewers the same way — folds each record into its own copy of the contest, and at the end of
every stored batch computes the view of each sight (``server.engine.views.sight``) once, diffs it against
that sight's previous view, and queues the encoded patch (with its notices) on every follower of that sight.

Everything that touches the feed's state between two awaits runs without awaiting, so a follower that
attaches sees each version exactly once: its welcome (and catch-up patch) describe the head at the moment
it is registered, and every later batch reaches it as a live patch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol

import msgspec

from protocol import errors
from protocol.codec import canonical, decode, document, encode, to_builtins
from protocol.common import Seat
from protocol.errors import Refused
from protocol.events import Envelope
from protocol.messages import CATCH_UP, EARLIER, Error, Json, Notice, NoticeLine, Patch, TokenRole, Welcome
from protocol.patch import Op, diff, view_hash, view_hash_of
from server.engine.contest import Contest, apply, fold, needs_history
from server.engine.names import Naming, naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.views import Sight, contest_view, contest_views, may_see, sight, written_patches
from server.net.metrics import ServerMetrics
from server.net.notices import Told, notice_frame, notice_line
from server.net.settings import Settings
from server.service import ContestService
from server.store.port import EventStore, StoreError

log = logging.getLogger(__name__)

Ring = tuple[bytes, str]
"""A sight's patch in the resume ring: its ops as JSON, and the hash of the view it leads to."""

RING_OPS = 256
"""A resume from the ring sends the ring's patches as one patch while they hold at most this many ops
(beyond, the view at the follower's version is refolded and diffed once: a shorter patch)."""


class Follower(Protocol):
    """A connection as the feed sees it: frames are queued without waiting (a slow one drops itself)."""

    def send(self, frame: bytes) -> None: ...


def view_doc(ruleset: Ruleset[Any], contest: Contest[Any], viewer: Viewer) -> dict[str, Json]:
    """The viewer's view as a plain JSON document (what patches are computed over)."""
    doc: dict[str, Json] = to_builtins(contest_view(ruleset, contest, viewer))
    return doc


class RefoldBudget:
    """How many events one frame may still refold to resume its follows (shared by a hello's follows)."""

    def __init__(self, events: int) -> None:
        self.left = events

    def take(self, events: int) -> bool:
        if events > self.left:
            return False
        self.left -= events
        return True


class ContestFeed:
    def __init__(
        self,
        contest: str,
        service: ContestService,
        store: EventStore,
        metrics: ServerMetrics,
        settings: Settings,
        on_idle: Callable[[ContestFeed], None],
    ) -> None:
        self.contest = contest
        self._service = service
        self._store = store
        self._metrics = metrics
        self._settings = settings
        self._on_idle = on_idle
        self._followers: dict[Follower, Viewer] = {}
        self._generations: dict[Follower, int] = {}  # the invitation generation each follower came with
        self._roles: dict[Follower, TokenRole] = {}
        self._docs: dict[Sight, dict[str, Json]] = {}
        self._encoded: dict[Sight, bytes] = {}  # each of ``_docs`` in canonical JSON
        # The resume ring: for the last ``resume_ring`` batches, each sight's patch (its ops encoded, and the
        # hash of the view it leads to), by the batch's last version; kept also for sights whose viewers left,
        # for as long. Encoded, the ring is a few bytes objects the garbage collector never walks.
        self._ring: OrderedDict[int, dict[Sight, Ring]] = OrderedDict()
        self._sights: dict[Sight, Sight] = {}
        self._departed: dict[Sight, tuple[Viewer, int]] = {}  # viewers who left: since which version
        self._checkpoints: OrderedDict[int, Contest[Any]] = OrderedDict()  # sparse states to refold resumes from
        self._recent: deque[tuple[Envelope, Any]] = deque(maxlen=4 * settings.resume_ring)
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._pending: list[tuple[Envelope, Any]] = []
        self._task: asyncio.Task[None] | None = None
        self._resyncing = asyncio.Lock()
        self._attaching = 0
        self.on_detach: Callable[[Follower], None] | None = None  # told of every follower leaving (presence)
        self._rules: Ruleset[Any]
        self._state: Contest[Any]  # the head as published: always the end of a stored batch
        self._folding: Contest[Any]  # the head as read (may be inside a batch)

    # --- lifecycle ----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Load the contest (Refused ``contest/not_found`` if there is none) and start tailing it."""
        self._rules, self._state = await self._service.load(self.contest)
        self._folding = self._state
        self._remember(self._state, {})
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
            if first - (start.version if start is not None else 0) > self._settings.refold_limit:
                if usable is None or usable.version <= first:
                    return
                start, first = usable, usable.version
        since = start.version if start is not None else 0
        envelopes = [decode(r.data, Envelope) for r in await self._store.read(self.contest, since, limit=head - since)]
        if start is not None and needs_history(start, envelopes):
            # An undo, redo or rewind after the snapshot needs the history the snapshot left out: fold the log
            # from the start when that is within the limit, else tell only how many events there are.
            if head > self._settings.refold_limit:
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
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for _, waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    @property
    def version(self) -> int:
        return int(self._state.version)

    @property
    def idle(self) -> bool:
        return not self._followers and not self._attaching

    @property
    def followers(self) -> int:
        return len(self._followers)

    def generation(self, seat: str) -> int:
        """The invitation generation of ``seat`` honoured now (older tokens are revoked)."""
        return int(self._state.generation(seat))

    @property
    def seats(self) -> Sequence[Seat]:
        seats: Sequence[Seat] = self._state.created.seats
        return seats

    # --- the tail -----------------------------------------------------------------------------------

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

    def offer(self, envelopes: Sequence[Envelope], before: Contest[Any], after: Contest[Any]) -> None:
        """A batch this process has just appended, taking the contest from ``before`` to ``after``: publish it
        now. Versions already taken are skipped; a batch beyond a gap is left to the store's subscription, which
        reads everything in order. When this feed holds ``before`` itself, it takes ``after`` as the batch's
        last state rather than folding it again (folding is deterministic)."""
        if self._task is None or self._task.done() or needs_history(self._folding, envelopes):
            return  # the subscription brings it, once the history is loaded
        same = self._folding is before
        for envelope in envelopes:
            if envelope.version == self._folding.version + 1 and envelope.prev_hash == self._folding.head_hash:
                self._take(envelope, after if same and envelope is envelopes[-1] else None)

    async def resync(self) -> None:
        """The stream lost versions this feed published: start again from what the store holds, and send
        every follower a fresh view (their copies describe a history that is gone). A store that drops out
        again meanwhile (Redis restarting after a crash) is tried again until it answers: the feed never
        stays stopped. One resync at a time, so the feed never runs twice."""
        async with self._resyncing:
            if self._task is not None:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
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
        self._checkpoints.clear()
        self._recent.clear()
        self._docs = {}
        self._encoded = {}
        self._departed.clear()
        self._remember(self._state, {})
        for follower, viewer in list(self._followers.items()):
            follower.send(encode(self._fresh_welcome(viewer, self._roles[follower])))
        self._wake(self._state.version)

    def _publish(self) -> None:
        started = time.perf_counter()
        batch, self._pending = self._pending, []
        state, previous = self._folding, self._state
        if state.generations is not previous.generations:  # only a re-issued seat revokes followers
            self._revoke(state)
        groups: dict[Sight, tuple[Viewer, list[Follower]]] = {}
        for follower, viewer in self._followers.items():
            key = sight(viewer)
            key = self._sights.setdefault(key, key)  # one key object per sight, shared by the ring's entries
            groups.setdefault(key, (viewer, []))[1].append(follower)
        for key, (viewer, since) in list(self._departed.items()):
            if key in groups or state.version - since > self._settings.resume_ring:
                del self._departed[key]  # back, or gone longer than the ring reaches
            else:
                groups[key] = (viewer, [])  # the ring keeps its patches, for a cheap resume
        private = any(envelope.visible_to is not None for envelope, _ in batch)
        # The ruleset's own patch for each sight, where it writes one for every event of the batch (else diffs).
        sights = list(groups)
        written = written_patches(self._rules, previous, state, batch, [groups[key][0] for key in sights])
        mine = dict(zip(sights, written, strict=True)) if written is not None else {}
        docs: dict[Sight, dict[str, Json]] = {}
        encoded: dict[Sight, bytes] = {}
        ring: dict[Sight, Ring] = {}
        patches: dict[tuple[bytes, bytes], tuple[list[Op], Ring]] = {}  # who sees the same shares a patch
        frames: dict[tuple[bytes, bytes, tuple[NoticeLine, ...]], bytes] = {}
        plain: dict[bytes, dict[str, Json]] = {}  # each distinct new view as a document, made once
        described: Told = {}  # each event's line, written once for the viewers shown the same event
        named = self._naming(batch)
        views = contest_views(self._rules, state, [groups[key][0] for key in sights])
        for key, view in zip(sights, views, strict=True):
            # One view per sight, its canonical bytes straight from the view. Its patch is the ruleset's, written
            # for the batch's events where it writes them; else a diff of the documents, each made once per
            # distinct view, and diffed once per distinct pair of views.
            viewer, followers = groups[key]
            new_bytes = canonical(view)
            old_bytes = self._encoded.get(key)
            old: dict[str, Json] | None = None
            if old_bytes is None:
                old = view_doc(self._rules, previous, viewer)
                old_bytes = canonical(old)
            shared = patches.get((old_bytes, new_bytes))
            if shared is None:
                ops = [] if old_bytes == new_bytes else mine.get(key)
                if ops is None:
                    old = self._doc(key) if old is None else old
                    new = plain.get(new_bytes)
                    if new is None:
                        new = plain[new_bytes] = document(new_bytes)
                    ops = diff(old, new)
                shared = patches[old_bytes, new_bytes] = (ops, (encode(ops), view_hash_of(new_bytes)))
            ring[key] = shared[1]
            told: dict[tuple[bool, ...], tuple[NoticeLine, ...]] = {}
            for follower in followers:
                # Notices differ within a sight only where the batch holds an event some may not see whole.
                seen = tuple(may_see(e, self._followers[follower]) for e, _ in batch) if private else ()
                lines = told.get(seen)
                if lines is None:
                    lines = told[seen] = self._lines(batch, self._followers[follower], named, described)
                frame = frames.get((old_bytes, new_bytes, lines))
                if frame is None:
                    ops, (_, new_hash) = shared
                    frame = frames[old_bytes, new_bytes, lines] = encode(
                        Patch(
                            contest=self.contest,
                            from_=previous.version,
                            to=state.version,
                            ops=ops,
                            view_hash=new_hash,
                            notices=list(lines),
                        )
                    )
                follower.send(frame)
            encoded[key] = new_bytes
            # Its document, where one was made (else it is made from the bytes when a welcome or a diff needs it).
            kept = plain.get(new_bytes)
            if kept is None and old_bytes == new_bytes:
                kept = old if old is not None else self._docs.get(key)
            if kept is not None:
                docs[key] = kept
        self._docs = docs
        self._encoded = encoded
        self._state = state
        self._remember(state, ring)
        self._recent.extend(batch)
        self._wake(state.version)
        self._metrics.fanout_seconds.observe(time.perf_counter() - started)

    def _revoke(self, state: Contest[Any]) -> None:
        """Followers whose invitation was re-issued get one last error and nothing more."""
        revoked = [f for f, v in self._followers.items() if self._generations[f] != state.generation(v.principal)]
        if not revoked:
            return
        frame = encode(
            Error(
                code=errors.REVOKED,
                message="this invitation was re-issued by the GM: ask the GM for the new link",
                contest=self.contest,
            )
        )
        for follower in revoked:
            follower.send(frame)
            self.detach(follower)

    def _lines(
        self, batch: list[tuple[Envelope, Any]], viewer: Viewer, named: Naming, told: Told
    ) -> tuple[NoticeLine, ...]:
        lines = (notice_line(self._rules, before, envelope, viewer, named, told) for envelope, before in batch)
        return tuple(line for line in lines if line is not None)

    def _notices(self, batch: list[tuple[Envelope, Any]], viewer: Viewer) -> list[bytes]:
        named = self._naming(batch)
        frames = (notice_frame(self._rules, before, e, viewer, named, self.contest) for e, before in batch)
        return [frame for frame in frames if frame is not None]

    def _naming(self, batch: list[tuple[Envelope, Any]]) -> Naming:
        """The names for a batch's lines: the rules' names before its first event and after its last (a thing
        the batch removed keeps its name, one it added has its name)."""
        first = batch[0][1] if batch else None
        return naming(self._rules, self._folding.created.seats, first, self._folding.rules)

    def _remember(self, state: Contest[Any], patches: dict[Sight, Ring]) -> None:
        self._ring[state.version] = patches
        while len(self._ring) > self._settings.resume_ring:
            self._ring.popitem(last=False)
        limit = self._settings.refold_limit
        step = max(1, limit // 8)
        if not self._checkpoints or state.version - next(reversed(self._checkpoints)) >= step:
            self._checkpoints[state.version] = state
        while self._checkpoints and next(iter(self._checkpoints)) < state.version - limit:
            self._checkpoints.popitem(last=False)

    def _wake(self, version: int) -> None:
        waiting: list[tuple[int, asyncio.Future[None]]] = []
        for wanted, waiter in self._waiters:
            if wanted <= version:
                if not waiter.done():
                    waiter.set_result(None)
            else:
                waiting.append((wanted, waiter))
        self._waiters = waiting

    async def reached(self, version: int, timeout: float) -> bool:
        """Wait until the feed has published ``version`` (True), or ``timeout`` seconds (False). While the feed
        reloads a contest whose store lost events, its version is of the lost history: it is waited out."""
        if self._holds(version):
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((version, waiter))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await waiter
        return self._holds(version)

    def _holds(self, version: int) -> bool:
        """Whether ``version`` is published, on a history the store still holds (not while reloading after a loss)."""
        return self.version >= version and not self._resyncing.locked()

    # --- followers ----------------------------------------------------------------------------------

    async def attach(
        self,
        follower: Follower,
        viewer: Viewer,
        role: TokenRole,
        after: int | None,
        generation: int = 0,
        budget: RefoldBudget | None = None,
    ) -> None:
        """Queue the follower's welcome — a fresh view, or a resume from ``after`` with the patch it missed
        and the notices still in memory — and register it for live patches. Refused ``auth/revoked`` when
        the invitation's ``generation`` is no longer the seat's."""
        following = follower in self._followers  # a resync: this follower already has the story
        base: Contest[Any] | None = None
        ring = self._from_ring(viewer, after) if after else None
        if after and ring is None:
            self._attaching += 1
            try:
                base = await self._base(after, budget or RefoldBudget(self._settings.refold_limit))
            finally:
                self._attaching -= 1
            ring = self._from_ring(viewer, after)  # the feed may have reached ``after`` meanwhile
        # From here on nothing awaits: the welcome describes the head the follower is registered at.
        if self._state.generation(viewer.principal) != generation:
            raise Refused(errors.REVOKED, "token: this invitation was re-issued by the GM; ask for the new link")
        seats = self._state.created.seats
        if ring is not None and after:
            at_hash, ops, head_hash = ring
            follower.send(
                encode(
                    Welcome(
                        contest=self.contest,
                        role=role,
                        seat=viewer.principal,
                        contestants=self._contestants(viewer),
                        name=self._seat_name(viewer),
                        version=after,
                        view_hash=at_hash,
                        seats=list(seats) if viewer.omniscient else None,
                    )
                )
            )
            if after < self._state.version:
                patch = Patch(contest=self.contest, from_=after, to=self._state.version, ops=ops, view_hash=head_hash)
                follower.send(encode(patch))
                self._missed(follower, viewer, after)
        elif base is None or base.version > self._state.version:
            follower.send(encode(self._fresh_welcome(viewer, role)))
            if after and after < self._state.version:
                follower.send(self._summary(after))
            elif not after and not following:  # the story so far, for a viewer who arrives now (not a resync)
                told = [(e, before) for e, before in self._recent if e.version <= self._state.version]
                earlier = told[0][0].version - 1 if told else self._state.version
                if earlier > 0:
                    follower.send(self._earlier(earlier, viewer))
                for frame in self._notices(told, viewer):
                    follower.send(frame)
        else:
            head = self._head_doc(viewer)
            old = view_doc(self._rules, base, viewer)
            welcome = Welcome(
                contest=self.contest,
                role=role,
                seat=viewer.principal,
                contestants=self._contestants(viewer),
                name=self._seat_name(viewer),
                version=base.version,
                view_hash=view_hash(old),
                seats=list(seats) if viewer.omniscient else None,
            )
            follower.send(encode(welcome))
            if base.version < self._state.version:
                patch = Patch(
                    contest=self.contest,
                    from_=base.version,
                    to=self._state.version,
                    ops=diff(old, head),
                    view_hash=view_hash(head),
                )
                follower.send(encode(patch))
                self._missed(follower, viewer, base.version)
        self._followers[follower] = viewer
        self._roles[follower] = role
        self._generations[follower] = generation

    def _earlier(self, events: int, viewer: Viewer) -> bytes:
        """One notice standing for the events before the story so far (the first ``events`` versions)."""
        where = "open the replay for all" if viewer.omniscient else "the GM's replay viewer has them all"
        return encode(
            Notice(
                contest=self.contest,
                version=events,
                kind=EARLIER,
                actor="",
                at="",
                text=f"… {events} earlier events — {where}",
            )
        )

    def _from_ring(self, viewer: Viewer, after: int) -> tuple[str, list[Op], str] | None:
        """From the ring: the hash of the viewer's view at ``after``, the ops from there to the head (the
        ring's patches in a row) and the head view's hash; None when the ring does not reach."""
        key = sight(viewer)
        at = self._ring.get(after, {}).get(key)
        if at is None or after > self._state.version:
            return None
        ops: list[Op] = []
        head_hash = at[1]
        for version, patches in reversed(self._ring.items()):  # the newest is the head's
            if version <= after:
                break
            patch = patches.get(key)
            if patch is None:
                return None
            if version == self._state.version:
                head_hash = patch[1]
            ops[:0] = decode(patch[0], list[Op])
            if len(ops) > RING_OPS:
                return None
        return at[1], ops, head_hash

    def _missed(self, follower: Follower, viewer: Viewer, since: int) -> None:
        """The notices of what a resuming follower missed since ``since`` (one summary when that is long)."""
        if self._state.version - since > self._settings.catch_up_notices:
            follower.send(self._summary(since))
            return
        missed = [(e, before) for e, before in self._recent if e.version > since]
        for frame in self._notices(missed, viewer):
            follower.send(frame)

    def _summary(self, since: int) -> bytes:
        """One notice standing for every event a resuming follower missed (never one frame per event)."""
        missed = self._state.version - since
        return encode(
            Notice(
                contest=self.contest,
                version=self._state.version,
                kind=CATCH_UP,
                actor="",
                at="",
                text=f"{missed} events since version {since}: the view is up to date; the log tells each one",
            )
        )

    def _head_doc(self, viewer: Viewer) -> dict[str, Json]:
        key = sight(viewer)
        if key in self._encoded:
            return self._doc(key)
        head = self._docs[key] = view_doc(self._rules, self._state, viewer)
        self._encoded[key] = canonical(head)
        return head

    def _doc(self, key: Sight) -> dict[str, Json]:
        """The sight's published view as a document, made from its bytes when first needed."""
        doc = self._docs.get(key)
        if doc is None:
            doc = self._docs[key] = document(self._encoded[key])
        return doc

    def _seat(self, viewer: Viewer) -> Seat | None:
        """The viewer's seat (None for a spectator or an auditor)."""
        return next((s for s in self._state.created.seats if s.id == viewer.principal), None)

    def _seat_name(self, viewer: Viewer) -> str | msgspec.UnsetType:
        seat = self._seat(viewer)
        return msgspec.UNSET if seat is None else seat.name

    def _contestants(self, viewer: Viewer) -> list[str]:
        seat = self._seat(viewer)
        return [] if seat is None else list(seat.contestants)

    def _fresh_welcome(self, viewer: Viewer, role: TokenRole) -> Welcome:
        head = self._head_doc(viewer)
        return Welcome(
            contest=self.contest,
            role=role,
            seat=viewer.principal,
            contestants=self._contestants(viewer),
            name=self._seat_name(viewer),
            version=self._state.version,
            view_hash=view_hash(head),
            view=head,
            seats=list(self._state.created.seats) if viewer.omniscient else None,
        )

    def detach(self, follower: Follower) -> None:
        self._generations.pop(follower, None)
        self._roles.pop(follower, None)
        viewer = self._followers.pop(follower, None)
        if viewer is None:
            return
        if self.on_detach is not None:
            self.on_detach(follower)
        key = sight(viewer)
        key = self._sights.get(key, key)
        if key in self._encoded and all(sight(v) != key for v in self._followers.values()):
            self._departed[key] = (viewer, self.version)  # the ring keeps its patches a while
        if not self._followers:
            self._on_idle(self)

    async def _base(self, after: int, budget: RefoldBudget) -> Contest[Any] | None:
        """The contest at ``after`` if it is the end of a stored batch this feed can still reach cheaply."""
        if after > self.version:
            # The client saw a version this process has not published yet (another process is ahead).
            if await self._store.head(self.contest) < after:
                return None
            if not await self.reached(after, self._settings.ack_wait):
                return None
        base = self._checkpoints.get(after)
        limit = self._settings.refold_limit
        if base is not None or self.version - after > limit:
            return base  # beyond the distance bound: a fresh view
        # Refold from the nearest state at or before ``after``: a checkpoint in memory, the stored
        # snapshot, or the start — never more than ``refold_limit`` events.
        start = next((c for v, c in reversed(self._checkpoints.items()) if v <= after), None)
        if after - (start.version if start else 0) > self._settings.resume_ring:
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


class Hub:
    """The feeds of this process: started on a contest's first local follower, stopped a while after its last."""

    def __init__(self, service: ContestService, store: EventStore, metrics: ServerMetrics, settings: Settings) -> None:
        self._service = service
        self._store = store
        self._metrics = metrics
        self._settings = settings
        self._feeds: dict[str, ContestFeed] = {}
        self._starting: dict[str, asyncio.Task[ContestFeed]] = {}
        self._lingering: dict[str, asyncio.TimerHandle] = {}
        self._background: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._feeds)

    def get(self, contest: str) -> ContestFeed | None:
        return self._feeds.get(contest)

    async def feed(self, contest: str) -> ContestFeed:
        """The contest's feed, started if needed (Refused ``contest/not_found`` when there is no such contest)."""
        linger = self._lingering.pop(contest, None)
        if linger is not None:
            linger.cancel()
        feed = self._feeds.get(contest)
        if feed is not None:
            return feed
        starting = self._starting.get(contest)
        if starting is None:
            starting = asyncio.get_running_loop().create_task(self._start(contest))
            self._starting[contest] = starting
        return await asyncio.shield(starting)

    async def _start(self, contest: str) -> ContestFeed:
        try:
            feed = ContestFeed(contest, self._service, self._store, self._metrics, self._settings, self._idle)
            await feed.start()
            self._feeds[contest] = feed
            self._metrics.followed.set(len(self._feeds))
            self._idle(feed)  # stopped later unless someone follows it by then
            return feed
        finally:
            self._starting.pop(contest, None)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (cancelled on close)."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _idle(self, feed: ContestFeed) -> None:
        if feed.contest in self._lingering:
            return
        self._lingering[feed.contest] = asyncio.get_running_loop().call_later(
            self._settings.feed_linger, self._stop_later, feed.contest
        )

    def _stop_later(self, contest: str) -> None:
        self.spawn(self._stop_if_idle(contest))

    async def _stop_if_idle(self, contest: str) -> None:
        self._lingering.pop(contest, None)
        feed = self._feeds.get(contest)
        if feed is not None and feed.idle:
            del self._feeds[contest]
            self._metrics.followed.set(len(self._feeds))
            await feed.stop()

    async def close(self) -> None:
        for handle in self._lingering.values():
            handle.cancel()
        self._lingering.clear()
        for task in list(self._background):
            task.cancel()
        feeds, self._feeds = list(self._feeds.values()), {}
        for feed in feeds:
            await feed.stop()
        self._metrics.followed.set(0)
