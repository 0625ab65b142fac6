"""A contest folded once in the cluster: ``ClusterFeed`` is a contest's feed in a process sharing its store with
others over a bus (``server.feed.bus``).

Exactly one live process *hosts* each contest: the one holding its host lease, taken by the first process a viewer
of the contest reaches. The host runs the contest's ``ContestFeed`` — it tails the store, folds, builds each sight's
view and encodes the frames — for its own viewers and for every other process's: those are its *remote followers*,
whose frames it sends to their process in one message per batch (``relay_wire.Frames``). Every other process with
viewers of the contest *relays*: it asks the host to attach each viewer, hands each frame the host sends to the
viewers it names, and folds nothing.

A command reaching a relay is forwarded to the host (``Run``), which decides and appends it there and answers
(``Done``) once the batch's frames are on their way, in the same message as or after them: a viewer still gets a
command's patch before its ack. (Deciding on the relay, with the store's compare-and-append, was measured no
cheaper, and would have the relay fold every event it missed before each command: a second fold of the contest.)

When a host dies its liveness lapses (``Bus.lapse``); its relays notice within a check (``CHECK``), one of them
takes the lease and starts folding, and every relay attaches its viewers again with the version they hold: each
gets the patch from there (or a fresh view). Requests made meanwhile wait for the next host and are asked of it
(a command with its own id: decided once). A host shutting down says so (``Gone``) and releases the lease, so its
relays take over at once. Messages are numbered per relay; a relay that misses one, or whose link to the host
breaks, attaches its viewers again the same way. Nothing acknowledged is at stake in any of this: the log is the
store's, and a command's ack only follows its patch.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import Any, Protocol

from protocol import errors
from protocol.codec import decode, encode
from protocol.common import Actor, Seat
from protocol.errors import Refused
from protocol.events import Command, ContestCreated, Envelope
from protocol.messages import Error, TokenRole
from server.engine.contest import Contest
from server.feed.bus import Bus
from server.feed.fanout import ContestFeed
from server.feed.followed import Follower
from server.feed.measures import Counted, Gauged, Observed
from server.feed.outbox import Outbox, Remote
from server.feed.published import published
from server.feed.relay_wire import Answer, Attach, Detach, Done, Frames, Gone, Run, decoder, encoder
from server.feed.tail import RefoldBudget
from server.feed.waiters import Waiters
from server.service import ContestService, Result
from server.store.port import EventStore, StoreError

log = logging.getLogger(__name__)

CHECK = 0.5
"""Seconds between two checks that the hosts this process relays are alive."""

Local = Callable[[Callable[[ContestFeed], None]], ContestFeed]
"""Makes the contest's own feed (not started), told ``on_idle`` when it has no follower left."""


class RelayMetrics(Protocol):
    """What the relays count (``server.net.metrics.ServerMetrics`` has it all)."""

    @property
    def hosted(self) -> Gauged: ...

    @property
    def relayed(self) -> Gauged: ...

    @property
    def takeovers(self) -> Counted: ...

    @property
    def relay_lag_seconds(self) -> Observed: ...


class _Unheard(Exception):
    """The host cannot be reached: no live process listens at its link address."""


class _HostChanged(_Unheard):
    """The contest has another host now: what the former one was asked is asked of it."""


_RETRY = 0.1
"""Seconds between two tries to reach a contest's host that went away (its liveness lapses meanwhile)."""


class _Patience:
    """How long a request waits for a host that went away to be replaced: its liveness lapses within ``lapse``
    seconds, and a check more is needed to take it over."""

    def __init__(self, lapse: float) -> None:
        self._until = asyncio.get_running_loop().time() + lapse + CHECK

    async def wait(self) -> bool:
        """Wait a moment before trying again: False once the patience is spent."""
        if asyncio.get_running_loop().time() >= self._until:
            return False
        await asyncio.sleep(_RETRY)
        return True


def _settled(future: asyncio.Future[Any]) -> None:
    """A request's answer no longer awaited: a host change told to it while the request was being posted (``_unheard``)
    is handled by the caller, not an error for the loop to log as never retrieved."""
    if future.done() and not future.cancelled():
        future.exception()


class _Viewer:
    """A viewer this process holds, as the host is asked to attach it."""

    __slots__ = ("actor", "generation", "number", "role")

    def __init__(self, number: int, actor: Actor, role: TokenRole, generation: int) -> None:
        self.number = number
        self.actor = actor
        self.role = role
        self.generation = generation


class ClusterFeed:
    def __init__(
        self,
        contest: str,
        bus: Bus,
        relays: Relays,
        store: EventStore,
        service: ContestService,
        local: Local,
        on_idle: Callable[[ClusterFeed], None],
        ack_wait: float,
    ) -> None:
        self.contest = contest
        self._service = service
        self.bus = bus
        self.me = bus.me
        self._relays = relays
        self._store = store
        self._make_local = local
        self._on_idle = on_idle
        self._ack_wait = ack_wait
        self.on_detach: Callable[[Follower], None] | None = None
        self._local: ContestFeed | None = None  # while this process hosts the contest
        self._host = ""
        self._viewers: dict[Follower, _Viewer] = {}  # this process's own viewers
        self._numbers = itertools.count(1)
        # while relaying:
        self._by_number: dict[int, Follower] = {}
        self._asked: dict[int, asyncio.Future[Answer]] = {}
        self._running: dict[int, asyncio.Future[Done]] = {}  # forwarded commands, by request number
        self._requests = itertools.count(1)
        self._seq = 0
        self._version = 0
        self._generations: dict[str, int] = {}
        self._seats: Sequence[Seat] = ()
        self._waiters = Waiters()
        self._untold: set[int] = set()  # viewers being attached that no frame has reached yet
        # while hosting:
        self._outboxes: dict[str, Outbox] = {}
        self._sequences: dict[str, Iterator[int]] = {}  # each relay's next message numbers, while hosting
        self._remotes: dict[tuple[str, int], Remote] = {}
        self._work: asyncio.Queue[Attach | Detach | Run] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._electing = asyncio.Lock()
        self._stopped = False
        self._attaching = 0

    # --- what the connections see -------------------------------------------------------------------

    @property
    def hosting(self) -> bool:
        return self._local is not None

    @property
    def electing(self) -> bool:
        """Whether the feed is finding out who hosts the contest (it may be about to host it)."""
        return self._electing.locked()

    @property
    def host(self) -> str:
        return self.me if self._local is not None else self._host

    @property
    def idle(self) -> bool:
        if self._local is not None:
            return self._local.idle and not self._viewers
        return not self._viewers and not self._attaching

    @property
    def version(self) -> int:
        return self._local.version if self._local is not None else self._version

    @property
    def generations(self) -> dict[str, int]:
        return self._local.generations if self._local is not None else dict(self._generations)

    @property
    def seats(self) -> Sequence[Seat]:
        return self._local.seats if self._local is not None else self._seats

    def generation(self, seat: str) -> int:
        return self._local.generation(seat) if self._local is not None else self._generations.get(seat, 0)

    async def attach(
        self,
        follower: Follower,
        actor: Actor,
        role: TokenRole,
        after: int | None,
        generation: int = 0,
        budget: RefoldBudget | None = None,
    ) -> None:
        viewer = self._viewers.get(follower) or _Viewer(next(self._numbers), actor, role, generation)
        viewer.actor, viewer.role, viewer.generation = actor, role, generation
        self._attaching += 1
        self._untold.add(viewer.number)
        try:
            unheard = _Patience(self.bus.lapse)
            while True:
                local = self._local
                if local is not None:
                    await local.attach(follower, actor, role, after, generation, budget)
                    self._viewers[follower] = viewer
                    return
                host = self._host
                self._by_number[viewer.number] = follower
                self._viewers[follower] = viewer
                try:
                    answer = await self._ask(viewer, after)
                except _HostChanged:
                    unheard = _Patience(self.bus.lapse)  # a new host: as much patience with it
                    continue
                except _Unheard:  # nobody listens at the host: it died, and is dead for all once its liveness lapses
                    if await unheard.wait():
                        await self.elect()
                        continue
                    self._unanswered(follower, viewer, "the process hosting this contest is away: try again")
                    return
                except TimeoutError:
                    if self._host == host and self._local is None:
                        why = "the process hosting this contest does not answer: try again"
                        self._unanswered(follower, viewer, why)
                        return
                    continue  # the host changed meanwhile: ask the new one
                if answer.code:
                    self._forget(follower)
                    raise Refused(answer.code, answer.message)
                return
        finally:
            self._attaching -= 1
            self._untold.discard(viewer.number)

    def _unanswered(self, follower: Follower, viewer: _Viewer, why: str) -> None:
        """The host never answered an attach: refused (``store/unavailable``, the client tries again) if nothing
        reached the viewer, else kept — its welcome came, so it follows the contest, and the next host the relay
        finds attaches it again from the version it holds (a follow is answered by a welcome or by an error,
        never by both)."""
        if viewer.number in self._untold:
            self._forget(follower)
            raise Refused(errors.UNAVAILABLE, why)

    async def _ask(self, viewer: _Viewer, after: int | None) -> Answer:
        """Ask the host to attach ``viewer``; its frames may arrive before the answer."""
        asked: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._asked[viewer.number] = asked
        try:
            attach = Attach(self.contest, self.me, viewer.number, viewer.actor, viewer.role, after, viewer.generation)
            if not await self.bus.post(self._host, encoder.encode(attach)):
                raise _Unheard(self._host)
            async with asyncio.timeout(self._ack_wait):
                return await asyncio.shield(asked)
        finally:
            if self._asked.get(viewer.number) is asked:
                del self._asked[viewer.number]
            _settled(asked)

    def _forget(self, follower: Follower) -> None:
        viewer = self._viewers.pop(follower, None)
        if viewer is not None:
            self._by_number.pop(viewer.number, None)

    def detach(self, follower: Follower) -> None:
        viewer = self._viewers.get(follower)
        if viewer is None:
            return
        self._forget(follower)
        if self._local is not None:
            self._local.detach(follower)
        else:
            self._relays.spawn(self._relays.post(self._host, Detach(self.contest, self.me, viewer.number)))
        if self.on_detach is not None:
            self.on_detach(follower)
        if self.idle:
            self._on_idle(self)

    async def reached(self, version: int, timeout: float) -> bool:
        if self._local is not None:
            return await self._local.reached(version, timeout)
        if self._version < version:
            await self._waiters.wait(version, timeout)
        if self._local is not None:
            return await self._local.reached(version, 0)
        return self._version >= version

    async def forward(self, actor: Actor, id: str, command: Command, generation: int) -> Result | None:
        """A command of this process's viewer: None while this process hosts the contest (decided here), else sent
        to the host, which answers once the command's batch is published (its frames reach this process first).
        A host that goes away meanwhile leaves it unanswered: it is asked again, with its id, of whoever hosts the
        contest next (decided once); after ``2 × ack_wait`` the client is told to send it again."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * self._ack_wait
        while self._local is None:
            number = next(self._requests)
            running: asyncio.Future[Done] = loop.create_future()
            self._running[number] = running
            try:
                run = Run(self.contest, self.me, number, actor, id, command, generation)
                if not await self.bus.post(self._host, encoder.encode(run)):
                    raise _Unheard(self._host)
                async with asyncio.timeout_at(deadline):
                    done = await asyncio.shield(running)
            except _HostChanged:
                continue  # asked again of the new host at once
            except (_Unheard, TimeoutError):
                if loop.time() >= deadline:
                    raise Refused(
                        errors.UNAVAILABLE, "the process hosting this contest does not answer: send it again"
                    ) from None
                await asyncio.sleep(_RETRY)
                await self.elect()  # the host went away: ask the next one (the same id: decided once)
                continue
            finally:
                del self._running[number]
                _settled(running)
            if done.code:
                raise Refused(done.code, done.message)
            return Result(self.contest, done.version, repeated=done.repeated)
        return None  # this process hosts the contest (it may have just taken it over)

    def offer(self, envelopes: Sequence[Envelope], before: Contest[Any], states: Sequence[Contest[Any]]) -> None:
        if self._local is not None:
            self._local.offer(envelopes, before, states)

    async def resync(self) -> None:
        if self._local is not None:
            await self._local.resync()

    # --- hosting or relaying --------------------------------------------------------------------------

    async def start(self) -> None:
        """Host the contest, or find its host (Refused ``contest/not_found`` if there is none)."""
        first = await self._store.read(self.contest, 0, limit=1)
        created = decode(first[0].data, Envelope).event if first else None
        if not isinstance(created, ContestCreated):
            raise Refused(errors.NO_SUCH_CONTEST, f"contest: no contest {self.contest!r}")
        self._seats = created.seats
        self._relays.feeds[self.contest] = self
        try:
            await self.elect()
        except BaseException:
            self._relays.feeds.pop(self.contest, None)
            raise

    async def elect(self) -> None:
        """Take the contest's host lease, or relay its holder; this process's viewers follow whichever it is."""
        async with self._electing:
            if self._stopped:
                return
            holder = await self.bus.claim(self.contest)
            if holder == self.me:
                if self._local is None:
                    await self._host_it()
                    self._unheard()
                return
            if self._local is not None:  # another process took it while this one was away: relay it now
                await self._give_up()
            if holder != self._host:
                log.info("contest %s: relaying the frames of %s", self.contest, holder)
                self._unheard()
                self._host, self._seq = holder, 0
                self._relays.hosting_changed()
            self._turn_away()
            for follower, viewer in list(self._viewers.items()):
                self._by_number[viewer.number] = follower
                self._relays.spawn(self._again(follower, viewer))

    async def _again(self, follower: Follower, viewer: _Viewer) -> None:
        """Attach a viewer again, with the version it holds (a new host, or frames lost on the way). A refusal no
        retry mends turns the viewer out (told why); any other (the host's store away a moment) is asked again
        a check later: the viewer was welcomed, and stays followed until it leaves."""
        host, tries = self._host, 0
        while True:
            try:
                answer = await self._ask(viewer, self._version or None)
            except (TimeoutError, _Unheard):
                return  # the host changed again, or does not answer: the next check elects again
            except Exception as error:
                log.info("contest %s: viewer not attached again: %s", self.contest, error)
                return
            if not answer.code or self._viewers.get(follower) is not viewer:
                return
            if answer.code in errors.PERMANENT:
                self._turn_out(follower, answer.code, answer.message)
                return
            if tries == 0:
                log.info("contest %s: viewer not attached again yet (%s): asking again", self.contest, answer.message)
            tries += 1
            await asyncio.sleep(CHECK)
            if self._viewers.get(follower) is not viewer or self._local is not None or self._host != host:
                return  # gone, or a new host: electing it attached every viewer again

    async def _host_it(self) -> None:
        local = self._make_local(lambda _: self._local_idle())
        await local.start()
        local.on_detach = self._local_detached
        self._local = local
        self._waiters.reached(local.version)
        self._worker = asyncio.get_running_loop().create_task(self._serve(), name=f"host:{self.contest}")
        self._relays.hosting_changed()
        if self._host:  # relayed until now: its host died, shut down or lost it
            self._relays.metrics.takeovers.inc()
            log.warning("contest %s: taken over from %s", self.contest, self._host)
        else:
            log.info("contest %s: hosted here", self.contest)
        after = self._version or None
        for follower, viewer in list(self._viewers.items()):
            try:
                await local.attach(follower, viewer.actor, viewer.role, after, viewer.generation)
            except Refused as refused:
                self._turn_out(follower, refused.code, refused.message)

    def _turn_out(self, follower: Follower, code: str, message: str) -> None:
        """A viewer the (new) host refused: told why, and detached."""
        follower.send(encode(Error(code=code, message=message, contest=self.contest)))
        self.detach(follower)

    async def _give_up(self) -> None:
        """Stop hosting (the lease is another's): remote followers go, this process's viewers stay (to be
        attached to the new host)."""
        local, self._local = self._local, None
        if local is None:
            return
        if self._worker is not None:
            self._worker.cancel()
        self._version = local.version
        self._generations = local.generations
        local.on_detach = None
        for outbox in self._outboxes.values():
            outbox.close()
        self._outboxes.clear()
        self._sequences.clear()
        self._remotes.clear()
        await local.stop()
        self._relays.hosting_changed()

    def _local_idle(self) -> None:
        if self.idle:
            self._on_idle(self)

    def _local_detached(self, follower: Follower) -> None:
        """The host's feed dropped a follower (left, or its invitation re-issued)."""
        if isinstance(follower, Remote):
            if self._remotes.get((follower.outbox.relay, follower.number)) is follower:
                del self._remotes[follower.outbox.relay, follower.number]
                follower.outbox.dropped(follower.number)
            return
        if follower in self._viewers:
            self._forget(follower)
            if self.on_detach is not None:
                self.on_detach(follower)

    # --- the host's side ------------------------------------------------------------------------------

    def asked(self, message: Attach | Detach | Run) -> None:
        """An attach, a detach or a command from a relay (attaches and detaches handled in order, one at a time;
        commands each at once)."""
        self._work.put_nowait(message)

    async def _serve(self) -> None:
        while True:
            message = await self._work.get()
            local = self._local
            if local is None:
                return
            if isinstance(message, Run):
                self._relays.spawn(self._run(message))
                continue
            key = (message.relay, message.follower)
            if isinstance(message, Detach):
                remote = self._remotes.pop(key, None)
                if remote is not None:
                    local.detach(remote)
                if not any(relay == message.relay for relay, _ in self._remotes):
                    self._close_outbox(message.relay)  # a relay that comes back starts counting again
                continue
            outbox = self._outbox(message.relay)
            remote = self._remotes.get(key) or Remote(outbox, message.follower)
            try:
                await local.attach(remote, message.actor, message.role, message.after, message.generation)
            except Refused as refused:
                outbox.answer(Answer(message.follower, refused.code, refused.message))
                continue
            except Exception:
                log.exception("contest %s: a relay's viewer could not be attached", self.contest)
                outbox.answer(Answer(message.follower, errors.INTERNAL, "internal server error"))
                continue
            self._remotes[key] = remote
            outbox.answer(Answer(message.follower))

    def _outbox(self, relay: str) -> Outbox:
        outbox = self._outboxes.get(relay)
        if outbox is None:
            seq = self._sequences.setdefault(relay, itertools.count(1))
            outbox = self._outboxes[relay] = Outbox(self, relay, seq)
        return outbox

    async def _run(self, run: Run) -> None:
        """Decide and append a relay's command here; answer once its batch is published (so after its frames)."""
        done: Done
        try:
            result = await self._service.execute(self.contest, run.actor, run.id, run.command, run.generation)
            local = self._local
            if local is not None:
                await published(local, self._service, result, self._ack_wait)
            done = Done(run.request, result.version, result.repeated)
        except Refused as refused:
            done = Done(run.request, code=refused.code, message=refused.message)
        except StoreError as failure:
            done = Done(run.request, code=failure.code, message="the store cannot take this now: try again")
        except Exception:
            log.exception("contest %s: a relayed command failed", self.contest, extra={"command": run.id})
            done = Done(run.request, code=errors.INTERNAL, message="internal server error")
        if self._local is not None:
            self._outbox(run.relay).done(done)
        # else: no longer hosted here; the relay asks again

    def _turn_away(self) -> None:
        """Attaches that arrived while this feed was finding out whether it hosts the contest, and it does not:
        their relays look again."""
        while not self._work.empty():
            message = self._work.get_nowait()
            if isinstance(message, Attach | Run):
                self._relays.spawn(self._relays.post(message.relay, Gone(self.contest, self.me)))

    def relay_gone(self, relay: str) -> None:
        """Nobody listens at ``relay`` any more: its followers go."""
        self._close_outbox(relay, now=True)
        local = self._local
        for key in [key for key in self._remotes if key[0] == relay]:
            remote = self._remotes.pop(key)
            if local is not None:
                local.detach(remote)

    def _close_outbox(self, relay: str, *, now: bool = False) -> None:
        outbox = self._outboxes.pop(relay, None)
        if outbox is not None:
            outbox.close(now=now)

    # --- the relay's side -----------------------------------------------------------------------------

    def received(self, message: Frames | Gone) -> None:
        if isinstance(message, Gone):
            if message.host == self._host and self._local is None:
                self._unheard(_Unheard(message.host))  # asked again once the next host is known
                self._relays.spawn(self.elect())
            return
        if message.host != self._host or self._local is not None:
            return  # from a former host
        if self._seq and message.seq != self._seq + 1:
            self._seq = message.seq
            log.info("contest %s: frames lost on the way from %s; attaching again", self.contest, self._host)
            self._relays.spawn(self.elect())
            self._answered(message)
            return
        self._seq = message.seq
        self._relays.metrics.relay_lag_seconds.observe(max(0.0, time.time() - message.sent))
        by_number = self._by_number
        for numbers, frame in message.frames:
            for number in numbers:
                follower = by_number.get(number)
                if follower is not None:
                    follower.send(frame)
        if self._untold:
            for numbers, _ in message.frames:
                self._untold.difference_update(numbers)
        for number in message.dropped:
            follower = by_number.get(number)
            if follower is not None:
                self._forget(follower)
                if self.on_detach is not None:
                    self.on_detach(follower)
        self._generations = message.generations
        self._version = message.version  # lower after the host reloaded a contest its store lost events of
        self._waiters.reached(message.version)
        self._answered(message)

    def _unheard(self, why: _Unheard | None = None) -> None:
        """What the former host was asked will not be answered: each is asked again of whoever hosts it next."""
        waiting: list[asyncio.Future[Any]] = [*self._asked.values(), *self._running.values()]
        for unanswered in waiting:
            if not unanswered.done():
                unanswered.set_exception(why or _HostChanged(self._host))

    def _answered(self, message: Frames) -> None:
        for answer in message.answers:
            asked = self._asked.get(answer.follower)
            if asked is not None and not asked.done():
                asked.set_result(answer)
        for done in message.done:
            running = self._running.get(done.request)
            if running is not None and not running.done():
                running.set_result(done)

    async def stop(self) -> None:
        self._stopped = True
        self._relays.feeds.pop(self.contest, None)
        self._relays.hosting_changed()
        async with self._electing:
            local = self._local
            if local is not None:
                relays = list(self._outboxes)
                await self.bus.release(self.contest)
                await self._give_up()
                for relay in relays:
                    await self._relays.post(relay, Gone(self.contest, self.me))
            else:
                for viewer in self._viewers.values():
                    await self._relays.post(self._host, Detach(self.contest, self.me, viewer.number))
        self._waiters.release()


class Relays:
    """This process's side of the bus: each message to the contest it is about; a broken link from a host has its
    contests elect again (a lost liveness: every contest); the hosts of the contests relayed here are checked for
    life every ``CHECK`` seconds."""

    def __init__(self, bus: Bus, metrics: RelayMetrics) -> None:
        self.bus = bus
        self.metrics = metrics
        self.feeds: dict[str, ClusterFeed] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._checking: asyncio.Task[None] | None = None
        self._listening: asyncio.Task[None] | None = None

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background (cancelled on close)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self) -> None:
        """Listen for the other processes' messages (once: every later call returns when it listens)."""
        if self._listening is None:
            self._listening = asyncio.get_running_loop().create_task(self._listen())
        await asyncio.shield(self._listening)

    async def _listen(self) -> None:
        await self.bus.listen(self._message, self._reset)
        self.bus.on_lost(lambda: self._reset(""))
        self._checking = asyncio.get_running_loop().create_task(self._check(), name="relays:check")

    def hosting_changed(self) -> None:
        """A feed began or stopped hosting or relaying: count them again."""
        hosted = sum(1 for feed in self.feeds.values() if feed.hosting)
        self.metrics.hosted.set(hosted)
        self.metrics.relayed.set(len(self.feeds) - hosted)

    def _message(self, data: bytes) -> None:
        try:
            message = decoder.decode(data)
        except Exception:
            log.warning("a message on the bus could not be read")
            return
        feed = self.feeds.get(message.contest)
        if isinstance(message, Attach | Detach | Run):
            if feed is not None and (feed.hosting or feed.electing):
                feed.asked(message)  # a feed taking the contest over answers once it hosts it
            elif isinstance(message, Attach | Run):  # not hosted here (any more): the relay looks again
                self.spawn(self.post(message.relay, Gone(message.contest, self.bus.me)))
            return
        if feed is not None:
            feed.received(message)

    async def post(self, process: str, message: Attach | Detach | Gone) -> None:
        """Send ``message`` to ``process`` if it can be reached (what is lost is asked again: see the module)."""
        with contextlib.suppress(Exception):
            await self.bus.post(process, encoder.encode(message))

    def _reset(self, process: str) -> None:
        """Messages from ``process`` (every process: "") may have been lost: its contests elect again, and their
        viewers are attached again."""
        for feed in list(self.feeds.values()):
            if not process or feed.host == process:
                self.spawn(feed.elect())

    async def _check(self) -> None:
        while True:
            await asyncio.sleep(CHECK)
            hosts = {feed.host for feed in self.feeds.values() if not feed.hosting and feed.host}
            for host in hosts:
                try:
                    alive = await self.bus.alive(host)
                except Exception:
                    continue  # the store is away: nobody can take anything over now
                if not alive:
                    log.warning("the process hosting some contests relayed here (%s) is gone", host)
                    for feed in [f for f in self.feeds.values() if not f.hosting and f.host == host]:
                        self.spawn(feed.elect())

    async def close(self) -> None:
        if self._checking is not None:
            self._checking.cancel()
        for task in list(self._tasks):
            task.cancel()
        await self.bus.close()
