"""The stored event: the envelope every ruleset shares, the engine's own events, and the unions of all."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.common import Actor, DiceMode, Seat
from protocol.rulesets import Declaration, RulesetCommand, RulesetEvent, Setup
from protocol.talk import TalkSetting

__all__ = ["Declaration", "RulesetCommand", "RulesetEvent", "Setup"]


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class ContestCreated(_Msg, frozen=True, tag="contest.created"):
    ruleset: str
    title: str
    setup: Setup
    seats: list[Seat]
    dice: DiceMode
    seed_hash: str | None  # sha256 of the secret dice seed (server dice); the seed is revealed at the end
    # who beyond the table reads its talk (absent: nobody; absent from the bytes of a contest created without it)
    talk: TalkSetting | msgspec.UnsetType = msgspec.UNSET


class Declared(_Msg, frozen=True, tag="seal.declared"):
    """A sealed declaration. Stored with payload and salt, visible to its author and the GM only;
    everyone else is shown the same event with ``payload`` and ``salt`` removed."""

    window: str
    participant: str
    commitment: str  # sha256(salt ‖ canonical payload), hex
    payload: Declaration | None = None
    salt: str | None = None


class RevealEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    participant: str
    payload: Declaration
    salt: str
    commitment: str


class Revealed(_Msg, frozen=True, tag="seal.revealed"):
    """Every declaration of a window, published at once, with salts so commitments can be checked."""

    window: str
    entries: list[RevealEntry]
    closed_by_gm: bool


class Undone(_Msg, frozen=True, tag="control.undone"):
    """The effective history is cut back to ``to_version`` (a checkpoint); ``removed`` can be redone."""

    to_version: int
    removed: list[int]


class Rewound(_Msg, frozen=True, tag="control.rewound"):
    to_version: int
    removed: list[int]


class Redone(_Msg, frozen=True, tag="control.redone"):
    restored: list[int]


class SeatReissued(_Msg, frozen=True, tag="seat.reissued"):
    """The GM re-issued the invitation of ``seat`` (a seat id, ``~spectator`` or ``~auditor``): only tokens of
    this ``generation`` are honoured from now on, by every process."""

    seat: str
    generation: int


class Concluded(_Msg, frozen=True, tag="contest.concluded"):
    """The GM ends the contest; the dice seed is revealed so every roll can be checked."""

    seed: str | None


Event = ContestCreated | Declared | Revealed | Undone | Rewound | Redone | Concluded | SeatReissued | RulesetEvent


# gc=False: never in a reference cycle (its fields are decoded values), so left out of the collector's work.
class Envelope(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    """One stored event. ``hash = sha256(prev_hash ‖ canonical bytes of this envelope with hash "")``."""

    contest: str
    version: int
    event_id: str
    command_id: str
    actor: Actor
    at: str
    visible_to: list[str] | None  # None: public; else the principals (and every GM) who may see it
    batch_end: bool  # the last event of the command that caused it
    checkpoint: bool  # a batch end that closes an exchange, a round or a phase: where undo stops
    event: Event
    prev_hash: str
    hash: str = ""


# --- commands the engine handles for every ruleset -----------------------------------------------------


class Declare(_Msg, frozen=True, tag="seal.declare"):
    participant: str
    payload: Declaration


class CloseDeclarations(_Msg, frozen=True, tag="seal.close"):
    """GM: reveal the window now with whatever has been declared."""


class Undo(_Msg, frozen=True, tag="control.undo"):
    pass


class Redo(_Msg, frozen=True, tag="control.redo"):
    pass


class Rewind(_Msg, frozen=True, tag="control.rewind"):
    to_version: int


class Conclude(_Msg, frozen=True, tag="contest.conclude"):
    pass


class ReissueSeat(_Msg, frozen=True, tag="seat.reissue"):
    """GM: revoke a seat's (or the spectators' or auditors') invitation; a new one is issued."""

    seat: str


EngineCommand = Declare | CloseDeclarations | Undo | Redo | Rewind | Conclude | ReissueSeat
Command = EngineCommand | RulesetCommand


CONTEST_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$"
"""Contest ids are ASCII letters, digits, ``-`` and ``_``: no look-alike Unicode."""


class CreateContest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a GM sends to open a contest."""

    ruleset: Annotated[str, msgspec.Meta(max_length=64)]
    setup: Setup
    seats: Annotated[list[Seat], msgspec.Meta(max_length=64)]
    title: Annotated[str, msgspec.Meta(max_length=200)] = ""
    dice: DiceMode = "server"
    contest: Annotated[str, msgspec.Meta(pattern=CONTEST_ID_PATTERN)] | None = None  # else one is generated
    talk: TalkSetting | msgspec.UnsetType = msgspec.UNSET  # spectators reading the table talk, auditors whispers
