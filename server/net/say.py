"""``say``: a line of table talk from a connection, stored and answered (see ``server.feed.talk``)."""

from __future__ import annotations

import logging

from protocol import errors
from protocol.errors import Refused
from protocol.talk import Say
from server.feed.talk import Follower
from server.net.context import ServerContext
from server.net.following import Following
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.talklog import talk_key

log = logging.getLogger("server.feed.talk")


async def say(ctx: ServerContext, follower: Follower, following: Following | None, message: Say) -> None:
    """Store a line of talk and answer it (raises Refused): only a seat at the table speaks, through a contest it
    follows with an invitation still honoured."""
    if following is None:
        raise Refused(
            errors.WRONG_CONTEST,
            f"contest: this connection follows no contest {message.contest!r}: follow it with its token",
        )
    claims = following.claims
    ctx.tokens.check_unexpired(claims)
    if claims.role not in ("gm", "player"):
        who = "an auditor" if claims.role == "auditor" else "a spectator"
        raise Refused(errors.TALK_NOT_ALLOWED, f"{who} reads the table talk; only the seats at the table speak")
    if following.feed.generation(claims.seat) > claims.gen:
        raise Refused(errors.REVOKED, "token: this invitation was re-issued by the GM; ask for the new link")
    if ctx.draining:
        raise Refused(errors.SHUTTING_DOWN, "the server is shutting down: reconnect and say it again")
    service: ContestService = ctx.service
    if await service.read_only(message.contest):
        raise Refused(errors.READ_ONLY, "contest: an imported contest can be replayed, never changed")
    _, contest = await service.load(message.contest)
    if contest.generation(claims.seat) != claims.gen:
        raise Refused(errors.REVOKED, "token: this invitation was re-issued by the GM; ask for the new link")
    feed = following.talk
    key = talk_key(following.actor, message.id)
    feed.expect(key, follower, message.id)
    # Logged by number, never by text: a whisper's words stay out of every log line.
    fields: dict[str, object] = {"contest": message.contest, "command": message.id, "kind": "say"}
    try:
        with ctx.appending():
            line, repeated = await ctx.talk.log.say(
                message.contest,
                contest.created,
                contest.version,
                contest.concluded is not None,
                following.actor,
                message.id,
                message.text,
                message.to,
                ruleset_named(contest.created.ruleset).names(contest.rules),
            )
        outcome = "repeated" if repeated else "ok"
        log.info("talk line %d %s", line.n, outcome, extra={**fields, "outcome": outcome, "version": contest.version})
        await feed.answer(follower, key, line, repeated, ctx.settings.ack_wait)
    except Refused as refused:
        log.info("talk refused: %s", refused.code, extra={**fields, "outcome": "refused", "code": refused.code})
        raise
    finally:
        feed.forget(key)  # answered, refused or failed: nothing waits for it any more
