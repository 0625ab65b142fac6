"""The client's protocol logic without any I/O: feed it every frame received, act on what it returns.

    core = ClientCore()
    core.expect("bridge", token)                  # before sending hello/follow for that contest
    for output in core.receive(frame_text):
        match output:
            case Send(message):    ...            # send this frame (e.g. a resync after a hash mismatch)
            case Welcomed(mirror): ...            # a follow succeeded; mirror.doc is the view
            case Changed(mirror):  ...            # the view moved on (a patch applied and checked)
            case Noticed(notice):  ...            # a line per event (a live patch brings its own)
            case Answered(id, message) | Refused(id, contest, error) | Ponged(nonce): ...
            case Lost(contest, error): ...            # the contest can never be followed again
            case Present(mirror): ...                 # who is at the table now: mirror.presence
            case Heard(mirror, lines): ...            # new lines of table talk (all of them: mirror.talk)
            case Close(): ...                         # and it was the last one followed: close the connection

It keeps one ``ContestMirror`` per followed contest: it applies patches, checks every ``view_hash``, and on
any mismatch or gap asks for a fresh view (``Send(Resync)``) and waits for its welcome. An error that no
retry can mend (the invitation revoked or expired, a bad token, the contest gone: ``PERMANENT``) forgets the
contest and says so (``Lost``); when it was being followed and nothing else is, the connection has no
more use: ``Close`` (a client that still follows other contests keeps it). A socket loop
(``client.AgonClient``) or any other transport drives it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import assert_never

import msgspec

from clients.python.mirror import ContestMirror
from protocol import errors
from protocol.codec import decode
from protocol.messages import (
    Ack,
    ClientMessage,
    Contests,
    Created,
    Error,
    Follow,
    Invited,
    Notice,
    Patch,
    Pong,
    Resync,
    ServerMessage,
    Timeline,
    Welcome,
    notice_of,
)
from protocol.presence import Presence
from protocol.talk import Said, Talk, TalkLine

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Send:
    message: ClientMessage


@dataclass(frozen=True)
class Welcomed:
    mirror: ContestMirror


@dataclass(frozen=True)
class Changed:
    mirror: ContestMirror


@dataclass(frozen=True)
class Noticed:
    notice: Notice


@dataclass(frozen=True)
class Answered:
    id: str
    message: Ack | Created | Contests | Invited | Timeline | Said


@dataclass(frozen=True)
class Refused:
    """An error: ``id`` for a request's, ``contest`` (and no id) for a failed follow, neither otherwise."""

    id: str | None
    contest: str | None
    error: Error


@dataclass(frozen=True)
class Ponged:
    nonce: int


@dataclass(frozen=True)
class Lost:
    """The contest is refused for good with this token (after ``Refused``): it is no longer followed."""

    contest: str
    error: Error


@dataclass(frozen=True)
class Close:
    """After ``Lost``: the contest was being followed and was the last one; close the connection cleanly.
    (A follow refused before its welcome leaves that to whoever asked, who was told by ``Refused``.)"""


@dataclass(frozen=True)
class Present:
    """Who is at the table of ``mirror.contest`` now changed: ``mirror.presence``."""

    mirror: ContestMirror


@dataclass(frozen=True)
class Heard:
    """Lines of table talk not received before, in order (every line received so far: ``mirror.talk``)."""

    mirror: ContestMirror
    lines: list[TalkLine]


Output = Send | Welcomed | Changed | Noticed | Answered | Refused | Ponged | Lost | Close | Present | Heard

PERMANENT = errors.PERMANENT
"""Codes of a follow (or resume) that no retry can mend: a new invitation is needed, or there is no contest."""


class ClientCore:
    def __init__(self) -> None:
        self.mirrors: dict[str, ContestMirror] = {}

    def expect(self, contest: str, token: str) -> ContestMirror:
        """Get ready for the welcome of a contest about to be followed with ``token``."""
        mirror = self.mirrors.get(contest)
        if mirror is None or mirror.token != token:
            mirror = self.mirrors[contest] = ContestMirror(contest=contest, token=token)
        return mirror

    def forget(self, contest: str) -> None:
        self.mirrors.pop(contest, None)

    def resumes(self) -> list[Follow]:
        """The follows of a hello that resumes every contest from the last version seen in sync."""
        return [
            Follow(contest=m.contest, token=m.token, after=m.version if m.in_sync and m.version else None)
            for m in self.mirrors.values()
        ]

    def receive(self, frame: str | bytes) -> list[Output]:
        try:
            message: ServerMessage = decode(frame, ServerMessage)  # type: ignore[arg-type]
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            log.warning("ignoring a frame the client cannot read: %s", error)
            return []
        return self.handle(message)

    def handle(self, message: ServerMessage) -> list[Output]:
        match message:
            case Welcome():
                mirror = self.mirrors.get(message.contest)
                if mirror is None:
                    return []
                if not mirror.welcome(message):
                    return [Send(Resync(contest=message.contest))]  # the fresh view's welcome follows
                return [Welcomed(mirror), Changed(mirror)]
            case Patch():
                mirror = self.mirrors.get(message.contest)
                if mirror is None:
                    return []
                applied = mirror.patch(message)
                told: list[Output] = [_noticed(mirror, notice_of(message.contest, line)) for line in message.notices]
                if not applied:
                    log.warning("view of %s out of sync at %d: asking for a fresh one", message.contest, message.to)
                    return [Send(Resync(contest=message.contest)), *told]
                return [Changed(mirror), *told] if mirror.in_sync else told
            case Notice():
                mirror = self.mirrors.get(message.contest)
                return [Noticed(message) if mirror is None else _noticed(mirror, message)]
            case Ack() | Created() | Contests() | Invited() | Timeline():
                return [Answered(message.id, message)]
            case Error():
                refused = Refused(message.id, message.contest, message)
                contest = message.contest
                if message.id is None and contest is not None and contest in self.mirrors and message.code in PERMANENT:
                    followed = bool(self.mirrors[contest].welcomes)
                    self.forget(contest)
                    last = followed and not self.mirrors
                    return [refused, Lost(contest, message), *([Close()] if last else [])]
                return [refused]
            case Pong():
                return [Ponged(message.nonce)]
            case Presence():
                mirror = self.mirrors.get(message.contest)
                if mirror is None:
                    return []
                mirror.presence = message
                return [Present(mirror)]
            case Said():
                mirror = self.mirrors.get(message.contest)
                heard = mirror.hear([message.line]) if mirror is not None else []
                outputs: list[Output] = [Heard(mirror, heard)] if mirror is not None and heard else []
                return [*outputs, Answered(message.id, message)] if isinstance(message.id, str) else outputs
            case Talk():
                mirror = self.mirrors.get(message.contest)
                if mirror is None:
                    return []
                if not mirror.talk:
                    mirror.earlier_talk = message.more
                heard = mirror.hear(message.lines)
                return [Heard(mirror, heard)] if heard else []
            case _:
                assert_never(message)


def _noticed(mirror: ContestMirror, notice: Notice) -> Noticed:
    mirror.notices.append(notice)
    return Noticed(notice)
