"""Table talk on the wire: what a seat says (``say``), the lines it becomes (``said``, and the ``talk`` history
after a follow's welcome), the contest's talk setting, and the shapes an export writes the talk in.

Table talk is kept beside the contest, never in its log: undo and rewind never touch it, and no ruleset sees it.
A line goes to the whole table, or is a whisper between one seat and the GM that nobody else receives.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.common import Id

MAX_TEXT = 500
"""The most characters a line holds, once trimmed (a longer one is refused with ``talk/too_long``)."""

SaidText = Annotated[str, msgspec.Meta(max_length=4 * MAX_TEXT)]
"""A ``say``'s text as sent: bounded on the wire; the server trims it and refuses more than ``MAX_TEXT``
characters with ``talk/too_long`` (a message a person reads, rather than a decoding error)."""


class TalkSetting(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who beyond the table reads its talk, chosen when the contest is created: ``spectators`` read the table's
    lines (never a whisper); ``auditors_whispers``: auditors (and exports) read whispers too."""

    spectators: bool = False
    auditors_whispers: bool = False


class RolledDie(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    sides: int
    face: int


class TalkRoll(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A ``/roll`` in the talk: the expression as read (``2d6+1``), each die rolled in the expression's order, the
    sum of its numbers (``modifier``), the ``total``, and the SHA-256 of the seed the faces come from (revealed
    once the contest is concluded, so every roll can be checked)."""

    expression: str
    dice: list[RolledDie]
    modifier: int
    total: int
    seed_hash: str


class TalkLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One line of table talk. ``n``: 1, 2, … per contest; ``from``: the speaker's seat, ``name`` the name shown
    for it; ``to`` and ``to_name``: the seat a whisper is for (absent: the whole table); ``version``: the
    contest's version when it was said; ``roll``: a ``/roll`` (then ``text`` is its comment, maybe empty)."""

    n: int
    from_: str = msgspec.field(name="from")
    name: str
    to: str | msgspec.UnsetType = msgspec.UNSET
    to_name: str | msgspec.UnsetType = msgspec.UNSET
    text: str
    at: str
    version: int
    roll: TalkRoll | msgspec.UnsetType = msgspec.UNSET

    @property
    def whisper(self) -> bool:
        return isinstance(self.to, str)


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Say(_Msg, frozen=True, tag="say"):
    """A line of table talk to a followed contest, as the seat of the token it was followed with; answered by
    the ``said`` carrying this ``id`` (the line is stored), or an ``error``. ``to``: a whisper to that seat (a
    player to a GM seat, the GM to a player seat); left out, the whole table reads it. A text starting with
    ``/roll `` or ``/r `` rolls dice (``/roll 2d6+1 to hit``)."""

    id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    contest: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    text: SaidText
    to: Id | None = None


class Said(_Msg, frozen=True, tag="said"):
    """A new line of table talk, sent to every follower who may read it. ``id``: on the copy that answers the
    connection's own ``say`` only (the line is durably stored)."""

    contest: str
    line: TalkLine
    id: str | msgspec.UnsetType = msgspec.UNSET


class Talk(_Msg, frozen=True, tag="talk"):
    """Right after the welcome of a follow (fresh or resumed): the last lines this viewer may read, oldest first
    (at most 200); ``more``: earlier ones exist."""

    contest: str
    lines: list[TalkLine]
    more: bool


# --- an exported contest's talk: JSON lines after the events -----------------------------------------------


class ExportedLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A line of the talk, in an export (after the events)."""

    talk: TalkLine


class WithheldLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A whisper the export leaves out (the contest's setting keeps whispers from auditors): only its number,
    so the numbering stays gapless."""

    talk_withheld: int


class RevealedSeed(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A talk seed, revealed in the export of a concluded contest: every roll whose ``seed_hash`` is its
    SHA-256 can be checked against it."""

    talk_seed: str
