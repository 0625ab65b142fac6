"""Every message between a client and the server over the WebSocket at ``/ws``.

JSON text frames, one message per frame, tagged by ``type``. A client's first frame is ``hello``; it
carries the tokens of the contests to follow (and the last version seen of each, to resume). The server
answers each follow with ``welcome`` (or ``error``), then sends ``patch`` and ``notice`` messages as the
contest moves on. Commands carry a client-chosen id, answered by ``ack`` or ``error`` with that id.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from protocol.common import Name, Seat
from protocol.events import Command, CreateContest
from protocol.patch import Op
from protocol.presence import Presence
from protocol.talk import Said, Say, Talk, TalkLine

Json = Any
"""A plain JSON value (a view is a JSON object)."""

TokenRole = Literal["gm", "player", "spectator", "auditor", "owner"]
"""What a token lets its holder do: play a seat (gm, player), watch (spectator), read everything without
acting (auditor), or list its contests (owner)."""

ContestId = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
CommandId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
Version = Annotated[int, msgspec.Meta(ge=0)]


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


# --- client → server ----------------------------------------------------------------------------------


class Follow(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Follow a contest with a token for it; ``after``: the last version seen, to resume from.

    ``contest`` may be left out: the token names its contest (an invitation link carries only the token)."""

    contest: ContestId | None = None
    token: Token = ""
    after: Version | None = None


class Hello(_Msg, frozen=True, tag="hello"):
    """The first frame of a connection: the contests to follow, and an owner token to list and create.

    A hello with neither is anonymous: it may only create contests (when the server allows it)."""

    follow: Annotated[list[Follow], msgspec.Meta(max_length=64)] = []
    owner: Token | None = None
    client: Annotated[str, msgspec.Meta(max_length=200)] = ""


class FollowContest(_Msg, frozen=True, tag="follow"):
    """Follow one more contest on this connection (``contest`` may be left out: the token names it)."""

    contest: ContestId | None = None
    token: Token = ""
    after: Version | None = None


class Unfollow(_Msg, frozen=True, tag="unfollow"):
    contest: ContestId


class Resync(_Msg, frozen=True, tag="resync"):
    """Ask for a fresh view (the client's view no longer matches a patch's ``view_hash``)."""

    contest: ContestId


class Execute(_Msg, frozen=True, tag="command"):
    """A command to a followed contest, as the seat of the token it was followed with.

    ``id`` is the idempotency key: sending the same id again returns the first result."""

    id: CommandId
    contest: ContestId
    command: Command


class Create(_Msg, frozen=True, tag="create"):
    """Open a contest; answered by ``created`` with the invitations (tokens) for its seats."""

    id: CommandId
    contest: CreateContest
    create_key: Annotated[str, msgspec.Meta(max_length=1024)] | None = None


class ListContests(_Msg, frozen=True, tag="list_contests"):
    """The contests created by this connection's owner (see ``Hello.owner``)."""

    id: CommandId


class Invite(_Msg, frozen=True, tag="invite"):
    """GM: a new invitation for ``seat`` (a player seat, ``~spectator`` or ``~auditor``), answered by ``invited``.

    The older invitations of that seat stop working at once, in every process (``seat.reissued`` is logged)."""

    id: CommandId
    contest: ContestId
    seat: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class GetTimeline(_Msg, frozen=True, tag="get_timeline"):
    """GM or auditor: the whole log as ``viewer`` saw it, that viewer's view at version ``at`` (default: the
    head), and the verification of the log; answered by ``timeline``.

    ``viewer``: ``gm``, a player seat id, or ``~spectator``. ``after``: the ``head`` of an earlier answer for
    the same viewer at the head (``at`` omitted): only the entries after it are sent, and ``revised`` carries
    the earlier entries whose marks (``undone``, ``rewind_to``) changed since."""

    id: CommandId
    contest: ContestId
    at: Version | None = None
    viewer: Annotated[str, msgspec.Meta(max_length=64)] = "gm"
    after: Version | None = None


class Ping(_Msg, frozen=True, tag="ping"):
    nonce: int = 0


ClientMessage = (
    Hello | FollowContest | Unfollow | Resync | Execute | Create | ListContests | Invite | GetTimeline | Ping | Say
)


# --- server → client ----------------------------------------------------------------------------------


class Welcome(_Msg, frozen=True, tag="welcome"):
    """A followed contest: who you are in it, and where your view starts.

    With ``view``: a fresh view at ``version``. Without: you resume from your own view at ``version``
    (its hash is ``view_hash``), and patches up to the head follow."""

    contest: str
    role: TokenRole
    seat: str
    contestants: list[str]
    version: int
    view_hash: str
    view: dict[str, Json] | None = None
    seats: list[Seat] | None = None  # every seat of the contest, for a GM or an auditor only
    name: Name | msgspec.UnsetType = msgspec.UNSET  # your seat's name, when the GM gave it one


class NoticeLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One human-readable line about one event the viewer may see (sealed payloads never appear)."""

    version: int
    kind: str  # the event's type tag
    actor: str
    at: str
    text: str
    # an undo or a rewind: the versions it undid; a redo: the versions it brought back (so every page can mark
    # the lines of undone events as the GM's timeline does)
    undone: tuple[int, ...] | msgspec.UnsetType = msgspec.UNSET
    redone: tuple[int, ...] | msgspec.UnsetType = msgspec.UNSET


class Patch(_Msg, frozen=True, tag="patch", omit_defaults=True):
    """RFC 6902 ops turning this viewer's view at ``from`` into its view at ``to``; ``view_hash`` is the
    hash of the result (``protocol.patch.view_hash``). A live patch carries ``notices``: a line for each
    event of its batch this viewer may see (left out when there is none)."""

    contest: str
    from_: int = msgspec.field(name="from")
    to: int = msgspec.field()
    ops: list[Op] = msgspec.field()
    view_hash: str = msgspec.field()
    notices: list[NoticeLine] = msgspec.field(default_factory=list)


EARLIER = "earlier"
"""The ``kind`` of the notice standing for the events before the story so far: its ``version`` is the last
event left out, and its text says how many there are."""

CATCH_UP = "catch_up"
"""The ``kind`` of the notice standing for every event a resuming follower missed: its ``version`` is the
head, and its text says how many there are."""

SUMMARY_KINDS = (EARLIER, CATCH_UP)
"""The ``kind`` of a notice that stands for many events and names no event type (``actor`` and ``at`` are
empty): a client shows it as it is."""

NoticeKind = Annotated[
    str,
    msgspec.Meta(
        description=(
            "the event's type tag; or, for a notice standing for many events (empty `actor` and `at`), "
            f"`{EARLIER}` (the events before the story so far) or `{CATCH_UP}` (what a resuming client missed)"
        ),
        examples=["seat.reissued", *SUMMARY_KINDS],
    ),
]


class Notice(_Msg, frozen=True, tag="notice"):
    """One human-readable log line about an event the viewer may see, outside a live patch: the story so far
    after a fresh welcome and what a resuming follower missed (sealed payloads never appear). A notice of
    ``kind`` ``earlier`` or ``catch_up`` stands for many events instead, and its ``actor`` and ``at`` are empty."""

    contest: str
    version: int
    kind: NoticeKind
    actor: str
    at: str
    text: str
    undone: tuple[int, ...] | msgspec.UnsetType = msgspec.UNSET  # as in a patch's notice line
    redone: tuple[int, ...] | msgspec.UnsetType = msgspec.UNSET


def notice_of(contest: str, line: NoticeLine) -> Notice:
    """A patch's notice line as the ``notice`` message that tells the same event outside a patch."""
    return Notice(
        contest=contest,
        version=line.version,
        kind=line.kind,
        actor=line.actor,
        at=line.at,
        text=line.text,
        undone=line.undone,
        redone=line.redone,
    )


class Ack(_Msg, frozen=True, tag="ack"):
    """The command is durably stored; the contest is at ``version`` after it (``repeated``: a retry)."""

    id: str
    contest: str
    version: int
    repeated: bool = False


class Error(_Msg, frozen=True, tag="error"):
    """A refusal with a stable code (protocol/errors.py). ``id``: the command it answers, if any;
    ``contest``: the contest it concerns, if any (a follow that failed has a contest and no id)."""

    code: str
    message: str
    id: str | None = None
    contest: str | None = None


class Invitations(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The tokens of a new contest: one per seat (GM and players), one for spectators, and the owner's."""

    gm: str
    seats: dict[str, str]
    spectator: str
    owner: str
    expires: int  # unix seconds


class Created(_Msg, frozen=True, tag="created"):
    id: str
    contest: str
    version: int
    invitations: Invitations


class ContestSummary(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    contest: str
    title: str
    ruleset: str
    version: int


class Contests(_Msg, frozen=True, tag="contests"):
    id: str
    contests: list[ContestSummary]


class Pong(_Msg, frozen=True, tag="pong"):
    nonce: int = 0


class Invited(_Msg, frozen=True, tag="invited"):
    """A new invitation (token) for a seat; the older ones are revoked."""

    id: str
    contest: str
    seat: str
    role: TokenRole
    token: str
    expires: int  # unix seconds


class TimelineEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One event of the log as the chosen viewer saw it.

    ``sealed``: a declaration shown only by its commitment; ``undone``: removed by an undo or a rewind (and
    not redone) as of the chosen version; ``rewind_to``: the GM may rewind the live contest to this version."""

    version: int
    kind: str
    actor: str
    at: str
    text: str
    sealed: bool
    undone: bool
    checkpoint: bool
    rewind_to: bool


class Verification(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``agon verify`` of the stored log: hash chain, commitments, dice against the revealed seed, the fold."""

    ok: bool
    events: int
    dice_checked: int
    dice_unchecked: bool  # server dice whose seed is revealed only when the contest is concluded
    problem: str | None


class Timeline(_Msg, frozen=True, tag="timeline"):
    id: str
    contest: str
    head: int
    at: int
    viewer: str
    read_only: bool
    entries: list[TimelineEntry]  # with ``after``: only the entries after it
    view: dict[str, Json]
    verification: Verification
    after: int | None = None  # the request's ``after``: ``entries`` continue the earlier answer
    revised: list[TimelineEntry] = []  # with ``after``: earlier entries whose marks changed since
    # the table talk ``viewer`` could read, each line with the version it was said at (with ``after``: from it on)
    talk: list[TalkLine] = []


ServerMessage = (
    Welcome | Patch | Notice | Ack | Error | Created | Contests | Invited | Timeline | Pong | Presence | Said | Talk
)
