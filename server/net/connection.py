"""One WebSocket connection: decode and authorize every frame, run commands, and send through a bounded queue.

Every frame is hostile until decoded. A bad frame gets an ``error`` and the connection stays open; a
flood gets ``rate/limited`` and a close (1008); a frame over the size limit is closed by websockets itself
(1009). Outgoing frames wait in a bounded queue written by a task of their own: a client too slow to keep
up is dropped (1013) and resumes later, and never stalls anyone else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed, InvalidState
from websockets.frames import CloseCode

from protocol import errors
from protocol.codec import decode_untrusted, encode
from protocol.common import AUDITOR, SPECTATOR, Actor
from protocol.errors import Refused
from protocol.events import ReissueSeat
from protocol.messages import (
    Ack,
    ClientMessage,
    Contests,
    Create,
    Error,
    Execute,
    FollowContest,
    GetTimeline,
    Hello,
    Invite,
    Invited,
    ListContests,
    Ping,
    Pong,
    Resync,
    TokenRole,
    Unfollow,
)
from protocol.talk import Say
from server import timeline
from server.feed.published import published
from server.feed.tail import RefoldBudget
from server.net.auth import Claims
from server.net.context import ServerContext
from server.net.following import Following
from server.net.forwarded import client_address
from server.net.limits import TokenBucket
from server.net.say import say
from server.service import Result
from server.store_error import StoreError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Close:
    code: int
    reason: str


class Connection:
    """Frames go straight to the socket while it takes them; only while its buffer is full do they wait, in
    a queue and with a writer task made for the occasion (an idle connection has neither)."""

    __slots__ = (
        "_bucket",
        "_close_queued",
        "_closing",
        "_creates",
        "_ctx",
        "_finished",
        "_flushing",
        "_following",
        "_over",
        "_owner",
        "_queue",
        "_said_hello",
        "_tasks",
        "_writer",
        "_ws",
    )

    def __init__(self, ws: ServerConnection, ctx: ServerContext) -> None:
        self._ws = ws
        self._ctx = ctx
        settings = ctx.settings
        self._queue: deque[bytes | _Close] | None = None  # frames waiting for the socket to drain
        self._writer: asyncio.Task[None] | None = None  # sends ``_queue`` once the socket drains
        self._bucket = TokenBucket(settings.rate, settings.burst)
        self._creates: TokenBucket | None = None  # made on the first create
        self._following: dict[str, Following] = {}
        self._owner: str | None = None
        self._said_hello = False
        self._closing = False
        self._close_queued = False
        self._tasks: set[asyncio.Task[None]] | None = None
        self._flushing = False  # frames wait in the protocol for the write at the end of this loop turn
        self._over = False
        self._finished: asyncio.Future[None] | None = None  # made for whoever waits for the end

    # --- sending ------------------------------------------------------------------------------------

    @property
    def queued(self) -> int:
        """Frames waiting for the socket to drain."""
        return 0 if self._queue is None else len(self._queue)

    async def finished(self) -> None:
        """Wait until the connection is over."""
        if self._over:
            return
        if self._finished is None:
            self._finished = self._ws.loop.create_future()
        await asyncio.shield(self._finished)

    def send(self, frame: bytes) -> None:
        """Send a frame, or queue it while the socket is full; a client whose queue is full is too slow
        and is dropped."""
        self.send_all((frame,))

    def send_all(self, frames: Sequence[bytes]) -> None:
        """Send frames in order; all those sent in one turn of the event loop leave in one write."""
        if self._closing:
            return
        if self._queue is None and not self._ws.paused:
            with contextlib.suppress(ConnectionClosed, InvalidState):  # the peer is closing: nothing to send to
                protocol = self._ws.protocol
                for frame in frames:
                    protocol.send_text(frame)
                if not self._flushing:
                    self._flushing = True
                    self._ws.loop.call_soon(self._flush)
            return
        queue = self._waiting()
        if len(queue) + len(frames) > self._ctx.settings.send_queue:
            self._ctx.metrics.dropped.inc("too_slow")
            self._abandon(CloseCode.TRY_AGAIN_LATER, f"{errors.TOO_SLOW}: reconnect and resume")
            return
        queue.extend(frames)

    def _flush(self) -> None:
        self._flushing = False
        self._ws.send_data()  # everything the protocol holds, in order (a close may have sent it already)

    def _waiting(self) -> deque[bytes | _Close]:
        """The queue, and the writer that empties it once the socket drains (both made when first needed)."""
        if self._queue is None:
            self._queue = deque()
        if self._writer is None:
            self._writer = self._ws.loop.create_task(self._write())
        return self._queue

    def _send(self, message: Any) -> None:
        self.send(encode(message))

    def _error(self, code: str, message: str, *, id: str | None = None, contest: str | None = None) -> None:
        self._ctx.metrics.errors.inc(code)
        if code == errors.UNAVAILABLE and contest is not None:  # by the shard holding the contest
            self._ctx.metrics.store_errors.inc(self._ctx.backend.shard(contest))
        self._send(Error(code=code, message=message, id=id, contest=contest))

    def _close_after_sending(self, code: int, reason: str) -> None:
        """Close once the frames already queued are sent."""
        if self._closing:
            return
        queue = self._waiting()
        if len(queue) >= self._ctx.settings.send_queue:
            self._abandon(code, reason)
            return
        queue.append(_Close(code, reason))
        self._closing = True
        self._close_queued = True
        self._leave_all()
        # The frames before the close may never leave (a peer that reads nothing): drop the socket then.
        self._spawn(self._drop_after(self._ctx.settings.close_timeout))

    def _abandon(self, code: int, reason: str) -> None:
        """Close now, dropping whatever is still queued."""
        if self._closing:
            return
        self._closing = True
        self._queue = None
        if self._writer is not None:
            self._writer.cancel()  # what waits is dropped
            self._writer = None
        self._leave_all()
        self._spawn(self._close_within(code, reason))

    async def _close_within(self, code: int, reason: str) -> None:
        """The closing handshake, bounded by the close timeout; then the socket is dropped. A peer that reads
        nothing never lets the close frame out (websockets waits for the socket to drain before its own
        timeout starts), so without the bound its connection and buffers would stay for good."""
        try:
            async with asyncio.timeout(self._ctx.settings.close_timeout):
                await self._ws.close(code, reason)
        except TimeoutError:
            self._ws.transport.abort()

    async def _drop_after(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        self._ws.transport.abort()

    def _spawn(self, work: Any) -> None:
        if self._tasks is None:
            self._tasks = set()
        task: asyncio.Task[None] = self._ws.loop.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _write(self) -> None:
        """Once the socket has drained, send everything queued in one write; again while more waits. With
        nothing left the queue and this task go away, and frames go straight to the socket again."""
        with contextlib.suppress(ConnectionClosed, InvalidState):
            while True:
                await self._ws.drain()
                queue = self._queue
                if not queue:
                    self._queue = None
                    self._writer = None
                    return
                while queue:
                    item = queue.popleft()
                    if isinstance(item, _Close):
                        self._ws.send_data()
                        await self._ws.close(item.code, item.reason)
                        return
                    self._ws.protocol.send_text(item)
                self._ws.send_data()

    # --- the connection's life ----------------------------------------------------------------------

    async def run(self) -> None:
        metrics = self._ctx.metrics
        metrics.connections.inc()
        metrics.connections_total.inc()
        self._ctx.connections.add(self)
        self._ctx.hellos.watch(self)  # one timer for every connection yet to say hello: an idle one keeps none
        try:
            recv = self._ws.recv  # not ``async for``: its generator would be one more object per idle connection
            while True:
                frame = await recv()
                if not self._closing:  # else read on (and drop) until the peer's close frame arrives
                    await self._take(frame)
                del frame  # while it waits for the next frame, a connection keeps no copy of the last one
        except ConnectionClosed:
            pass
        finally:
            writer = self._writer
            if self._close_queued and writer is not None:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(self._ctx.settings.close_timeout):
                        await asyncio.shield(writer)
            self._closing = True
            self._ctx.hellos.heard(self)
            self._leave_all()
            if self._writer is not None:
                self._writer.cancel()
            for task in list(self._tasks or ()):
                task.cancel()
            metrics.connections.dec()
            self._ctx.connections.discard(self)
            self._over = True
            if self._finished is not None:
                self._finished.set_result(None)

    async def _take(self, frame: str | bytes) -> None:
        metrics = self._ctx.metrics
        metrics.frames.inc()
        if not self._bucket.take():
            metrics.dropped.inc("rate_limited")
            self._error(errors.RATE_LIMITED, "too many frames: this connection is closed; slow down")
            self._close_after_sending(CloseCode.POLICY_VIOLATION, "rate limited")
            return
        await self._handle(frame)

    def going_away(self) -> None:
        """Close with 1001 once the frames already queued (acks of in-flight commands included) are sent."""
        self._close_after_sending(CloseCode.GOING_AWAY, "server shutting down")

    def no_hello(self) -> None:
        """The hello timeout has passed (``server.net.hello_watch``)."""
        if not self._said_hello:
            self._error(errors.UNAUTHENTICATED, "no hello: the first frame must be a hello")
            self._close_after_sending(CloseCode.POLICY_VIOLATION, "no hello")

    def _leave_all(self) -> None:
        following, self._following = self._following, {}
        for follow in following.values():
            follow.leave(self)

    # --- frames -------------------------------------------------------------------------------------

    async def _handle(self, frame: str | bytes) -> None:
        try:
            message: ClientMessage = decode_untrusted(frame, ClientMessage)  # type: ignore[arg-type]
        except Refused as refused:
            self._error(refused.code, refused.message)
            return
        except Exception:  # a decoder surprise must cost this frame, never the connection
            log.exception("could not decode a frame")
            self._error(errors.BAD_FRAME, "not a message")
            return
        if not self._said_hello and not isinstance(message, Hello | Ping):
            self._error(errors.UNAUTHENTICATED, "say hello first: the first frame carries the tokens")
            return
        match message:
            case Hello():
                await self._hello(message)
            case FollowContest():
                await self._answer(self._follow(message.contest, message.token, message.after), contest=message.contest)
            case Unfollow():
                following = self._following.pop(message.contest, None)
                if following is not None:
                    following.leave(self)
            case Resync():
                await self._answer(self._resync(message), contest=message.contest)
            case Execute():
                await self._answer(self._execute(message), id=message.id, contest=message.contest)
            case Create():
                await self._answer(self._create(message), id=message.id)
            case ListContests():
                await self._answer(self._list(message), id=message.id)
            case Invite():
                await self._answer(self._invite(message), id=message.id, contest=message.contest)
            case GetTimeline():
                await self._answer(self._timeline(message), id=message.id, contest=message.contest)
            case Say():
                said = say(self._ctx, self, self._following.get(message.contest), message)
                await self._answer(said, id=message.id, contest=message.contest)
            case Ping():
                self._send(Pong(nonce=message.nonce))
            case _:
                assert_never(message)

    async def _answer(self, work: Any, *, id: str | None = None, contest: str | None = None) -> None:
        """Run a request; any refusal becomes an error carrying its id and contest."""
        try:
            await work
        except Refused as refused:
            self._error(refused.code, refused.message, id=id, contest=contest)
        except StoreError as failure:
            log.warning("store error on %s: %s", contest, failure.message, extra={"contest": contest, "command": id})
            self._error(failure.code, "the store cannot take this now: try again", id=id, contest=contest)
        except Exception:
            log.exception("internal error on %s", contest, extra={"contest": contest, "command": id})
            self._error(errors.INTERNAL, "internal server error", id=id, contest=contest)

    async def _hello(self, hello: Hello) -> None:
        self._said_hello = True
        self._ctx.hellos.heard(self)
        if hello.owner is not None:
            try:
                claims = self._ctx.tokens.verify(hello.owner)
                if claims.role != "owner":
                    raise Refused(errors.BAD_TOKEN, "owner: not an owner token")
                self._owner = claims.seat
            except Refused as refused:
                self._error(refused.code, refused.message)
        # One follow per contest (the last entry wins): a hello listing a contest 64 times costs one follow;
        # and all its resumes together refold at most ``refold_limit`` events (beyond: fresh views).
        budget = RefoldBudget(self._ctx.settings.refold_limit)
        for follow in {follow.contest or follow.token: follow for follow in hello.follow}.values():
            await self._answer(self._follow(follow.contest, follow.token, follow.after, budget), contest=follow.contest)

    async def _follow(
        self, named: str | None, token: str, after: int | None, budget: RefoldBudget | None = None
    ) -> None:
        """Follow a contest with a seat's, a spectator's or an auditor's token (raises Refused).

        ``named`` may be None: the token says which contest it is for."""
        claims = self._ctx.tokens.verify(token)
        if claims.role == "owner":
            raise Refused(errors.BAD_TOKEN, "token: an owner token lists contests; follow with a seat's token")
        contest = claims.contest if named is None else named
        if claims.contest != contest:
            raise Refused(errors.WRONG_CONTEST, f"token: this token is for another contest, not {contest!r}")
        if self._ctx.draining:
            raise Refused(errors.SHUTTING_DOWN, "the server is shutting down: reconnect and resume")
        limit = self._ctx.settings.max_follows
        if contest not in self._following and len(self._following) >= limit:
            raise Refused(errors.RATE_LIMITED, f"a connection follows at most {limit} contests")
        feed = await self._ctx.hub.feed(contest)
        if claims.role not in ("spectator", "auditor") and not any(
            seat.id == claims.seat and seat.role == claims.role for seat in feed.seats
        ):
            raise Refused(errors.BAD_TOKEN, f"token: contest {contest!r} has no such seat")
        actor = Actor(claims.seat, claims.role)
        if claims.gen > feed.generation(claims.seat):
            # A link newer than this process's feed: its re-issue is stored, the feed has not read it yet.
            await feed.reached(await self._ctx.service.head(contest), self._ctx.settings.ack_wait)
        # The talk feed first: once the welcome is sent the follow may no longer be refused (a follow is answered
        # by a welcome or by an error, never by both), and starting the talk feed reads the store.
        talk_feed = await self._ctx.talk.feed(contest)
        await feed.attach(self, actor, claims.role, after, claims.gen, budget)
        if self._closing:
            feed.detach(self)
            return
        try:  # the same one, running (no wait), unless it stopped meanwhile: its lines follow the welcome at once
            talk_feed = await self._ctx.talk.feed(contest)
        except BaseException:
            feed.detach(self)
            raise
        if self._closing:
            feed.detach(self)
            return
        talk_feed.attach(self, actor.principal, claims.role, claims.gen, feed)
        try:
            previous = self._following.get(contest)
            if previous is not None:
                previous.expiry.cancel()
            left = max(0.0, claims.exp - self._ctx.tokens.now())
            expiry = self._ws.loop.call_later(left, self._expired, contest, claims)
        except BaseException:
            feed.detach(self)  # nothing stays attached to a follow that failed
            talk_feed.detach(self)
            raise
        self._following[contest] = Following(claims, actor, feed, expiry, talk_feed)
        self._ctx.presence.joined(feed, self, actor.principal, claims.role)  # right after its welcome

    def _expired(self, contest: str, claims: Claims) -> None:
        """The token a contest is followed with has expired: no more patches for it."""
        following = self._following.get(contest)
        if following is None or following.claims is not claims:
            return
        del self._following[contest]
        following.leave(self)
        self._error(errors.EXPIRED_TOKEN, "token: expired; follow again with a new invitation", contest=contest)

    def _followed(self, contest: str) -> Following:
        following = self._following.get(contest)
        if following is None:
            raise Refused(
                errors.WRONG_CONTEST,
                f"contest: this connection follows no contest {contest!r}: follow it with its token",
            )
        return following

    async def _resync(self, message: Resync) -> None:
        following = self._followed(message.contest)
        await following.feed.attach(self, following.actor, following.claims.role, None, following.claims.gen)

    def _acting(self, contest: str) -> Following:
        """The contest followed with a token that may act now (raises Refused)."""
        following = self._followed(contest)
        self._ctx.tokens.check_unexpired(following.claims)
        if following.claims.role == "spectator":
            raise Refused(errors.FORBIDDEN, "a spectator may watch but not act")
        if following.claims.role == "auditor":
            raise Refused(errors.FORBIDDEN, "an auditor may read everything but not act")
        # The feed may lag behind the store: it tells only of a re-issue it has seen. The service checks the
        # link's generation against the head the command is appended on.
        if following.feed.generation(following.claims.seat) > following.claims.gen:
            raise Refused(errors.REVOKED, "token: this invitation was re-issued by the GM; ask for the new link")
        return following

    async def _execute(self, message: Execute) -> None:
        following = self._acting(message.contest)
        if self._ctx.draining:
            raise Refused(errors.SHUTTING_DOWN, "the server is shutting down: reconnect and send the command again")
        metrics = self._ctx.metrics
        fields: dict[str, object] = {
            "contest": message.contest,
            "command": message.id,
            "kind": type(message.command).__struct_config__.tag,
        }
        with self._ctx.appending():
            started = time.perf_counter()
            try:
                # Decided where the contest is hosted: here, or forwarded to its host (answered once published).
                forwarded = await following.feed.forward(
                    following.actor, message.id, message.command, following.claims.gen
                )
                result = forwarded or await self._ctx.service.execute(
                    message.contest, following.actor, message.id, message.command, following.claims.gen
                )
            except Refused as refused:
                metrics.commands.inc("refused")
                log.info(
                    "command refused: %s", refused.code, extra={**fields, "outcome": "refused", "code": refused.code}
                )
                raise
            except Exception:
                metrics.commands.inc("failed")
                log.warning("command failed", extra={**fields, "outcome": "failed"})
                raise
            metrics.append_seconds.observe(time.perf_counter() - started)
            metrics.commands.inc("ok")
            outcome = "repeated" if result.repeated else "ok"
            log.info("command %s", outcome, extra={**fields, "outcome": outcome, "version": result.version})
            if forwarded is None:  # a forwarded command is answered by its host once published
                await self._published(following, result)
            self._send(Ack(id=message.id, contest=message.contest, version=result.version, repeated=result.repeated))

    async def _published(self, following: Following, result: Result) -> None:
        """Wait for the feed to publish a command's batch: its answer follows the command's own patch."""
        await published(following.feed, self._ctx.service, result, self._ctx.settings.ack_wait)

    async def _invite(self, message: Invite) -> None:
        following = self._acting(message.contest)
        if following.claims.role != "gm":
            raise Refused(errors.FORBIDDEN, "only a GM may re-issue an invitation")
        with self._ctx.appending():
            result = await self._ctx.service.execute(
                message.contest, following.actor, message.id, ReissueSeat(seat=message.seat), following.claims.gen
            )
            _, contest = await self._ctx.service.load(message.contest)
            role: TokenRole = "player"
            if message.seat == SPECTATOR:
                role = "spectator"
            elif message.seat == AUDITOR:
                role = "auditor"
            ttl = self._ctx.settings.token_ttl
            token = self._ctx.tokens.issue(message.contest, role, message.seat, ttl, contest.generation(message.seat))
            await self._published(following, result)
        expires = self._ctx.tokens.now() + ttl
        self._send(
            Invited(id=message.id, contest=message.contest, seat=message.seat, role=role, token=token, expires=expires)
        )

    async def _timeline(self, message: GetTimeline) -> None:
        following = self._followed(message.contest)
        if following.claims.role not in ("gm", "auditor"):
            raise Refused(errors.FORBIDDEN, "only a GM or an auditor may read the whole timeline")
        _, contest = await self._ctx.service.load(message.contest)  # the stored head, not the feed's
        if contest.generation(following.claims.seat) != following.claims.gen:
            raise Refused(errors.REVOKED, "token: this invitation was re-issued by the GM")
        self._send(await timeline.answer(self._ctx.service, message, following.actor))

    async def _create(self, message: Create) -> None:
        if self._ctx.draining:
            raise Refused(errors.SHUTTING_DOWN, "the server is shutting down: try again")
        self._ctx.lobby.check_create_key(message.create_key)
        peer = str(self._ws.remote_address[0]) if self._ws.remote_address else ""
        forwarded = self._ws.request.headers.get("X-Forwarded-For") if self._ws.request else None
        address = client_address(peer, forwarded, self._ctx.settings.trusted_proxies)
        if self._creates is None:
            self._creates = TokenBucket(self._ctx.settings.create_rate, self._ctx.settings.create_burst)
        if not self._creates.take() or not self._ctx.may_create(address):
            raise Refused(errors.RATE_LIMITED, "create: too many contests opened lately from here; try again later")
        with self._ctx.appending():
            owner, created = await self._ctx.lobby.create(self._owner, message.contest, message.id)
        self._owner = owner
        self._send(created)

    async def _list(self, message: ListContests) -> None:
        if self._owner is None:
            raise Refused(errors.UNAUTHENTICATED, "listing contests needs an owner token (hello.owner)")
        self._send(Contests(id=message.id, contests=await self._ctx.lobby.contests(self._owner)))
