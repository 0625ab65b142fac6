"""Small types shared by the engine's and every ruleset's messages."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Role = Literal["gm", "player", "spectator", "auditor"]
DiceMode = Literal["server", "physical"]
HeroPointWindow = Literal["always", "when_it_matters"]
"""After a roll with a PC in it: ``always`` waits for each such PC's player to answer (let it stand, or spend a
hero point), so nobody else can tell who holds hero points; ``when_it_matters`` waits only for a PC holding one
that could change the result (faster, but the log's shape then tells the table who holds hero points)."""

SPECTATOR = "~spectator"
"""The principal of every spectator, live or in a replay: no seat id may take it (seat ids never start with ``~``)."""
AUDITOR = "~auditor"
"""The principal of every auditor (read-only, sees everything)."""


# Bounds the rulesets' wire types share (each ruleset adds its own): a value outside gets ``protocol/bad_field``
# naming the field at decoding, and no rules computation ever sees it.
Id = Annotated[str, msgspec.Meta(max_length=64)]
"""An id chosen at the table: a seat, a contestant, a side, a zone, a character."""
Face = Annotated[int, msgspec.Meta(ge=-100, le=100)]
"""A face typed from a physical die (the rules check it against its die)."""

# ... and those of the QuestWorlds contests (extended, herowars, scored).
MAX_CONTESTANTS = 24
"""The most contestants a new extended contest or scored sequence holds (followers in it included), far beyond a
group contest a table plays: each seat's view shows every contestant and is built, encoded and diffed at every
command, so this keeps a command within a frame's budget (docs/rules/extended.md and scored.md, "Table limits").
Checked when a contest is created (``contest/bad_setup``); the wire types keep ``MAX_LISTED``, so a contest
stored under the wider limits of earlier releases still decodes and folds."""
MAX_LISTED = 64
"""The longest list of contestants, followers, targets or an order the wire carries."""
MAX_NUMBER = 1_000_000
"""The largest modifier, augment, followers' AP, edge, bid or AP adjustment (either sign)."""
Number = Annotated[int, msgspec.Meta(ge=-MAX_NUMBER, le=MAX_NUMBER)]
HeroPoints = Annotated[int, msgspec.Meta(ge=0, le=100)]
RatingText = Annotated[str, msgspec.Meta(min_length=1, max_length=12)]
"""A rating as written (``14``, ``5W``, ``5W2``); its meaning is checked by the rules (``rules/bad_rating``, which
names the field in words a player understands), and its length here."""
Name = Annotated[str, msgspec.Meta(max_length=200)]
Text = Annotated[str, msgspec.Meta(max_length=2000)]


class Actor(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who caused an event: a principal (a seat id such as ``gm`` or ``player:ann``) and its role."""

    principal: str
    role: Role


class Seat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A place at the table: the GM's, or a player's bound to the contestants they control."""

    id: Id
    role: Literal["gm", "player"]
    contestants: Annotated[list[Id], msgspec.Meta(max_length=64)] = []
    # The name people read for the seat: the player's name the GM typed ("Played by"); absent, pages show the
    # id. Absent from the bytes when unset, so a seat stored before names existed keeps its hash.
    name: Name | msgspec.UnsetType = msgspec.UNSET


class Dice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Faces rolled for one event.

    Server dice: face j is derived from HMAC-SHA256(seed, key ‖ first + j), so an auditor holding the
    revealed seed can check it. Physical dice: typed in at the table; ``key`` and ``first`` are 0.
    """

    source: DiceMode
    sides: list[int]
    faces: list[int]
    key: int = 0
    first: int = 0


class ApChart(msgspec.Struct, frozen=True):
    """An AP chart by columns, oldest point first: point i is each contestant's AP (by id) after
    ``exchange[i]`` exchanges were applied, or, when ``adjusted[i]``, after AP changed between that exchange
    and the next (a GM adjustment, a loan, a gift, a disengagement, a final action). ``null`` where the viewer
    may not see that contestant's AP."""

    exchange: list[int] = []
    adjusted: list[bool] = []
    ap: dict[str, list[int | None]] = {}


class RatedContestant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What every contestant of an extended or Hero Wars contest is set up with: its ability, rating, modifiers
    and points."""

    id: Id
    name: Name
    ability: Name
    rating: RatingText  # "14", "5W", "5W2"
    modifier: Number = 0  # situational modifiers, added to the value
    augment: Number = 0  # augments, added to the value
    followers_ap: Number = 0  # AP of followers added at the start
    edge: Number = 0  # ^N; negative for a handicap
    hero_points: HeroPoints = 0


QuestRollKind = Literal["exchange", "parting_shot", "final_action", "disengage", "loan", "gift"]


class RolledSide(msgspec.Struct, frozen=True):
    """One side's d20 in a QuestWorlds roll: whose die (a contestant's id; None for a resistance, or for someone
    outside the contest, named by ``outsider``), its face (None: no die, a value of 0 or less rolls Failure) and
    its level after masteries and any hero point."""

    contestant: str | None
    face: int | None
    level: str  # Fumble, Failure, Success or Critical
    hero_point: bool = False  # a hero point raised it one step
    outsider: str = ""  # a gift's giver, who is not in the contest


class QuestRoll(msgspec.Struct, frozen=True):
    """The dice of the newest roll a QuestWorlds contest has applied (an exchange, or a simple contest inside
    it), kept in the view so that every page can still draw them once the exchange is applied. Everything in it
    is public: the faces and levels were in the exchange everyone saw, and who won in the log."""

    kind: QuestRollKind
    exchange: int  # the exchange's number; a simple contest's: how many exchanges were applied before it
    sides: list[RolledSide]  # the acting side's die first
    won: int | None = None  # the index in ``sides`` of the die that won; None: a tie, or no contest of dice
    result: str = ""  # a simple contest's result for the acting side ("Minor Victory", "Tie")
