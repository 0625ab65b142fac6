"""Live fan-out: a ``ContestFeed`` is a contest's feed (``server.feed.tail``: the tail, the fold
and the resume ring) with followers — connections, each with the viewer its token gives it. At the end of every
stored batch the view of each sight is built once (``server.feed.views``) and each follower is queued the encoded
patch of its sight with the notices it may read; a follower that arrives or comes back gets its welcome (a fresh
view, or a resume from the ring or from a refold) and the story so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, cast

import msgspec

from protocol import errors
from protocol.codec import encode
from protocol.common import Actor, Seat
from protocol.errors import Refused
from protocol.events import Command, Envelope
from protocol.messages import CATCH_UP, EARLIER, Error, Notice, NoticeLine, Patch, TokenRole, Welcome
from protocol.patch import Op, diff, view_hash
from server.engine.contest import Contest
from server.engine.names import Naming, naming
from server.engine.ruleset import Viewer
from server.engine.views import Sight, may_see, sight, viewer_for
from server.feed.followed import Follower as Follower
from server.feed.measures import Gauged, Observed
from server.feed.notices import Told, notice_frame, notice_line
from server.feed.ring import Ring
from server.feed.tail import Batch, ContestTail, RefoldBudget
from server.feed.views import SightViews, view_doc
from server.service import ContestService, Result
from server.store.port import EventStore


class FeedSettings(Protocol):
    """The server's settings a feed reads (``server.net.settings.Settings`` has them all)."""

    @property
    def resume_ring(self) -> int: ...

    @property
    def refold_limit(self) -> int: ...

    @property
    def ack_wait(self) -> float: ...

    @property
    def catch_up_notices(self) -> int: ...

    @property
    def feed_linger(self) -> float: ...


class FeedMetrics(Protocol):
    """The metrics a feed keeps (``server.net.metrics.ServerMetrics`` has them all)."""

    @property
    def fanout_seconds(self) -> Observed: ...

    @property
    def followed(self) -> Gauged: ...


class ContestFeed(ContestTail):
    def __init__(
        self,
        contest: str,
        service: ContestService,
        store: EventStore,
        metrics: FeedMetrics,
        settings: FeedSettings,
        on_idle: Callable[[ContestFeed], None],
    ) -> None:
        super().__init__(
            contest,
            service,
            store,
            resume_ring=settings.resume_ring,
            refold_limit=settings.refold_limit,
            ack_wait=settings.ack_wait,
        )
        self._metrics = metrics
        self._settings = settings
        self._on_idle = on_idle
        self._followers: dict[Follower, Viewer] = {}
        self._generations: dict[Follower, int] = {}  # the invitation generation each follower came with
        self._roles: dict[Follower, TokenRole] = {}
        self._views = SightViews()
        self._attaching = 0
        self.on_detach: Callable[[Follower], None] | None = None  # told of every follower leaving (presence)

    @property
    def idle(self) -> bool:
        return not self._followers and not self._attaching

    @property
    def followers(self) -> int:
        return len(self._followers)

    # --- publishing ---------------------------------------------------------------------------------

    def _reloaded(self) -> None:
        """Every follower gets a fresh view: their copies describe a history that is gone."""
        self._views.clear()
        for follower, viewer in list(self._followers.items()):
            follower.send(encode(self._fresh_welcome(viewer, self._roles[follower])))

    def _deliver(self, batch: Batch, previous: Contest[Any], state: Contest[Any]) -> dict[Sight, Ring]:
        started = time.perf_counter()
        if state.generations is not previous.generations:  # only a re-issued seat revokes followers
            self._revoke(state)
        groups: dict[Sight, tuple[Viewer, list[Follower]]] = {}
        for follower, viewer in self._followers.items():
            key = self._ring.interned(sight(viewer))  # one key object per sight, shared by the ring's entries
            groups.setdefault(key, (viewer, []))[1].append(follower)
        departed = self._ring.departed
        for key, (viewer, since) in list(departed.items()):
            if key in groups or state.version - since > self._settings.resume_ring:
                del departed[key]  # back, or gone longer than the ring reaches
            else:
                groups[key] = (viewer, [])  # the ring keeps its patches, for a cheap resume
        private = any(envelope.visible_to is not None for envelope, _ in batch)
        changes = self._views.publish(self._rules, previous, state, batch, {key: v for key, (v, _) in groups.items()})
        frames: dict[tuple[bytes, bytes, tuple[NoticeLine, ...]], bytes] = {}
        described: Told = {}  # each event's line, written once for the viewers shown the same event
        named = self._naming(batch)
        for key, (_, followers) in groups.items():
            change = changes[key]
            told: dict[tuple[bool, ...], tuple[NoticeLine, ...]] = {}
            for follower in followers:
                # Notices differ within a sight only where the batch holds an event some may not see whole.
                seen = tuple(may_see(e, self._followers[follower]) for e, _ in batch) if private else ()
                lines = told.get(seen)
                if lines is None:
                    lines = told[seen] = self._lines(batch, self._followers[follower], named, described)
                frame = frames.get((change.old, change.new, lines))
                if frame is None:
                    frame = frames[change.old, change.new, lines] = encode(
                        Patch(
                            contest=self.contest,
                            from_=previous.version,
                            to=state.version,
                            # The ops as the ring keeps them, encoded once for the sight: written in as they are.
                            ops=cast("list[Op]", msgspec.Raw(change.ring[0])),
                            view_hash=change.ring[1],
                            notices=list(lines),
                        )
                    )
                follower.send(frame)
        self._metrics.fanout_seconds.observe(time.perf_counter() - started)
        return {key: change.ring for key, change in changes.items()}

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

    # --- followers ----------------------------------------------------------------------------------

    async def attach(
        self,
        follower: Follower,
        actor: Actor,
        role: TokenRole,
        after: int | None,
        generation: int = 0,
        budget: RefoldBudget | None = None,
    ) -> None:
        """Queue the follower's welcome — a fresh view for the ``actor``'s eyes, or a resume from ``after`` with
        the patch it missed and the notices still in memory — and register it for live patches. Refused
        ``auth/revoked`` when the invitation's ``generation`` is no longer the seat's."""
        viewer = viewer_for(actor, self._state.created.seats)
        following = follower in self._followers  # a resync: this follower already has the story
        base: Contest[Any] | None = None
        ring = self._ring.resume(viewer, after, self._state.version) if after else None
        if after and ring is None:
            self._attaching += 1
            try:
                base = await self._base(after, budget or RefoldBudget(self._settings.refold_limit))
            finally:
                self._attaching -= 1
            ring = self._ring.resume(viewer, after, self._state.version)  # the feed may have reached it meanwhile
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
            head = self._views.head(sight(viewer), self._rules, self._state, viewer)
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
        head = self._views.head(sight(viewer), self._rules, self._state, viewer)
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

    async def forward(self, actor: Actor, id: str, command: Command, generation: int) -> Result | None:
        """Commands are decided in this process (it folds the contest itself)."""
        return None

    def detach(self, follower: Follower) -> None:
        self._generations.pop(follower, None)
        self._roles.pop(follower, None)
        viewer = self._followers.pop(follower, None)
        if viewer is None:
            return
        if self.on_detach is not None:
            self.on_detach(follower)
        key = self._ring.known(sight(viewer))
        if key in self._views and all(sight(v) != key for v in self._followers.values()):
            self._ring.departed[key] = (viewer, self.version)  # the ring keeps its patches a while
        if not self._followers:
            self._on_idle(self)
