"""Public types of the `scored` ruleset (QuestWorlds scored sequence, resolution points): setup, the sealed
tactic, commands, events and the view."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import MAX_LISTED, Dice, Face, HeroPointWindow, Id, Name, RatingText, Text

TacticKind = Literal["none", "gambit", "defensive"]
Role = Literal["main", "contestant", "secondary", "supporter"]
Phase = Literal["between", "declaring", "ready", "rolled", "decided"]
ContestKind = Literal["round", "assist", "engage", "parting_shot"]
OutReason = Literal["tally", "round", "engaged"]

# Every number and text a client sends is bounded here, at decoding: a value outside gets
# ``protocol/bad_field`` naming the field, and no rules computation ever sees it. Every number a view shows
# stays within what a JavaScript client represents exactly.
MAX_POINTS = 1_000_000
"""The most resolution points a correction or a shift moves, and the most a correction may take a tally to
(``rules/bad_delta`` past it)."""

Points = Annotated[int, msgspec.Meta(ge=-MAX_POINTS, le=MAX_POINTS)]
StoryPoints = Annotated[int, msgspec.Meta(ge=0, le=100)]
Faces = Annotated[list[Face], msgspec.Meta(max_length=8)]
CHART_POINTS = 100
"""How many of the newest resolved contests the view's chart shows (each point holds every tally; a sequence may
go on for any number of contests, and every seat's view is encoded at every command)."""


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Contestant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Anyone taking part: a PC or NPC (``role`` main), or a follower of one in one of three roles.

    A follower is controlled by whoever controls its leader (its seat names both)."""

    id: Id
    name: Name
    side: Id  # exactly two sides, e.g. "heroes" and "opposition"
    ability: Name = ""
    rating: RatingText = "10"  # "14", "5W", "5W2"
    story_points: StoryPoints = 0
    follower_of: Id | None = None
    role: Role = "main"  # a follower's role: contestant, secondary or supporter
    joins_later: bool = False  # not in the sequence until it joins a comrade's tally


class ScoredSetup(_Msg, frozen=True, tag="scored.setup"):
    prize: Text
    contestants: Annotated[list[Contestant], msgspec.Meta(max_length=MAX_LISTED)]
    assist_resistance: RatingText = "10"  # the base resistance of a beneficiary's first assist
    players_type_faces: bool = False  # physical dice: a player may type in the faces of their own rolls
    story_point_window: HeroPointWindow = "always"  # whose answer a rolled contest waits for (see docs)


# --- the sealed declaration -------------------------------------------------------------------------


class Tactic(_Msg, frozen=True, tag="scored.tactic"):
    """A contestant's tactic for this round, sealed until both sides have chosen."""

    tactic: TacticKind = "none"
    action: Text = ""
    ability: Name | None = None  # another ability for this round
    rating: RatingText | None = None  # its rating; required with ability


# --- commands -----------------------------------------------------------------------------------------


class StartRound(_Msg, frozen=True, tag="scored.start_round"):
    """GM: the next round, between two opponents; ``initiative`` chooses its tactics first."""

    initiative: Id
    responder: Id


class Roll(_Msg, frozen=True, tag="scored.roll"):
    """Roll the round. Physical dice: ``faces`` is ``[initiative, responder]``, as named by
    ``scored.start_round`` (the view's ``initiative`` and ``responder``); the contest's ``first`` party is the
    initiative, ``second`` the responder."""

    faces: Faces | None = None


class SpendStoryPoint(_Msg, frozen=True, tag="scored.spend_story_point"):
    """After the dice: one more success for the contestant (repeatable while it has story points). Offered
    (``may_spend``) only while spending the story points it holds could change what the contest does (the RP
    it moves, whom it removes or brings back); otherwise refused ``rules/no_story_point``."""

    contestant: Id


class KeepStoryPoints(_Msg, frozen=True, tag="scored.keep_story_points"):
    contestant: Id


class Confirm(_Msg, frozen=True, tag="scored.confirm"):
    """GM: resolve the rolled contest now."""


class _SimpleContest(_Msg, frozen=True, kw_only=True):
    """A command rolling a simple contest: what its first party does, another ability of its own (``ability``
    and ``rating`` together), and physical faces."""

    action: Text = ""
    ability: Name | None = None
    rating: RatingText | None = None
    faces: Faces | None = None


class Assist(_SimpleContest, frozen=True, tag="scored.assist"):
    """A simple contest against the assist resistance to change a teammate's tally. Physical dice: ``faces``
    is ``[helper, resistance]`` (the contest's ``first`` party is the helper, ``second`` the resistance)."""

    helper: Id
    beneficiary: Id


class ShiftPoints(_Msg, frozen=True, tag="scored.shift_points"):
    """Move resolution points from a contestant's tally onto its follower acting as a secondary contestant."""

    contestant: Id
    follower: Id
    points: Points


class EngageFollower(_SimpleContest, frozen=True, tag="scored.engage_follower"):
    """An otherwise unengaged opponent (one that has met in a round no opponent still in the sequence:
    ``rules/otherwise_engaged``) engages an opposing follower to remove it; on any failure of the follower it is
    out. The follower rolls its own rating. The opponent's side is named by whoever controls it (§5.2.1.3):
    the GM sets the resistance the follower faces (an NPC or the GM's follower), or the player of another
    PC's follower names the relevant ability of its follower: ``ability`` and ``rating`` together (default:
    the opponent's own). A supporter engages nobody: it assists (``rules/supporter_does_not_engage``).
    Faces: the opponent's, then the follower's."""

    opponent: Id
    follower: Id


class PartingShot(_SimpleContest, frozen=True, tag="scored.parting_shot"):
    """A contestant strikes an opponent just taken out; a supporter strikes nobody
    (``rules/supporter_does_not_engage``). Faces: the shooter's, then the target's."""

    shooter: Id
    target: Id


class Join(_Msg, frozen=True, tag="scored.join"):
    """A contestant arrives and shares the tally of a comrade already in the sequence: a main contestant of
    its side, never a follower (``rules/not_a_comrade``)."""

    contestant: Id
    comrade: Id


class Adjust(_Msg, frozen=True, tag="scored.adjust"):
    """GM: correct the resolution points against a contestant's tally, with a reason."""

    contestant: Id
    delta: Points
    reason: Text


Command = (
    StartRound
    | Roll
    | SpendStoryPoint
    | KeepStoryPoints
    | Confirm
    | Assist
    | ShiftPoints
    | EngageFollower
    | PartingShot
    | Join
    | Adjust
)


# --- events -------------------------------------------------------------------------------------------


class Party(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One side of a simple contest: who (None for a resistance), with what, and the die."""

    contestant: str | None
    rating: str
    face: int
    successes: int  # before story points


class RoundStarted(_Msg, frozen=True, tag="scored.round_started"):
    round: int
    initiative: str
    responder: str


class ContestRolled(_Msg, frozen=True, tag="scored.contest_rolled"):
    """The dice of a simple contest: a round, an assist, an engagement of a follower or a parting shot."""

    kind: ContestKind
    round: int
    first: Party
    second: Party
    dice: Dice
    target: str | None = None  # an assist's beneficiary
    action: str = ""


class StoryPointSpent(_Msg, frozen=True, tag="scored.story_point_spent"):
    contestant: str


class StoryPointsKept(_Msg, frozen=True, tag="scored.story_points_kept"):
    contestant: str


class ContestResolved(_Msg, frozen=True, tag="scored.contest_resolved"):
    """The result of the rolled contest and the resolution points it moves.

    ``winner``/``loser``: contestant ids, "resistance" for an assist's resistance, None on a standoff.
    ``points``: RP lodged against ``against`` (negative: taken off it)."""

    kind: ContestKind
    round: int
    winner: str | None
    loser: str | None
    degree: int
    successes: list[int]  # first's, second's, story points included
    against: str | None
    points: int
    result: str


class PointsShifted(_Msg, frozen=True, tag="scored.points_shifted"):
    contestant: str
    follower: str
    points: int


class Joined(_Msg, frozen=True, tag="scored.joined"):
    contestant: str
    comrade: str


class PointsAdjusted(_Msg, frozen=True, tag="scored.points_adjusted"):
    contestant: str
    delta: int
    reason: str


class TakenOut(_Msg, frozen=True, tag="scored.taken_out"):
    """A contestant leaves the sequence: its tally reached the limit (``tally``), a follower took 3 RP in
    one round (``round``) or was engaged and failed (``engaged``). ``last_round``: RP lodged against it by
    the contest that took it out (what a parting shot's comeback can win back)."""

    contestant: str
    reason: OutReason
    last_round: int


class Returned(_Msg, frozen=True, tag="scored.returned"):
    contestant: str


class Outcome(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One main contestant's result: by the difference between its tally and its opponent's (§5.2.2.1).
    ``difference`` is ``rp_for - rp_against``: the RP lodged against its opponent minus those against itself,
    positive when it is ahead, negative when behind; ``degree`` reads its size (0 for a difference of 0).
    ``victory``, not the sign, says whether it won: one taken out by its tally has lost (``victory`` false)
    even when its side wins; it is measured against the opponent it lost to, with that opponent's RP when it
    went out."""

    contestant: str
    opponent: str
    rp_against: int
    rp_for: int
    difference: int
    degree: int
    victory: bool


class SequenceDecided(_Msg, frozen=True, tag="scored.sequence_decided"):
    winner: str  # the winning side
    loser: str
    outcomes: list[Outcome]


class SequenceResumed(_Msg, frozen=True, tag="scored.sequence_resumed"):
    """A parting shot's comeback (or a correction) brought the beaten side back."""


Event = (
    RoundStarted
    | ContestRolled
    | StoryPointSpent
    | StoryPointsKept
    | ContestResolved
    | PointsShifted
    | Joined
    | PointsAdjusted
    | TakenOut
    | Returned
    | SequenceDecided
    | SequenceResumed
)


# --- what a viewer sees -------------------------------------------------------------------------------


class ContestantView(msgspec.Struct, frozen=True):
    id: str
    name: str
    side: str
    ability: str
    rating: str
    role: Role
    follower_of: str | None
    tally: str  # whose tally it shares (its own id unless it joined a comrade)
    rp: int  # resolution points against its tally (public, §5.2.1.2)
    story_points: int | None  # only for its controller and the GM
    present: bool
    out: OutReason | None
    controlled_by_you: bool  # a player's own contestants; for the GM, those no player controls
    # the opponents it has met in a round that are still in: while any are, it engages no follower (§5.2.1.3)
    engaged_with: list[str] = []


class PendingView(msgspec.Struct, frozen=True):
    kind: ContestKind
    first: Party
    second: Party
    target: str | None
    spent: dict[str, int]
    waiting_for: list[str]  # whose player must still spend story points or let the result stand
    may_spend: list[str] = []  # who may still spend one, shown only to the GM and its own player


class RolledView(msgspec.Struct, frozen=True):
    """The dice of the newest contest resolved (a round, an assist, an engagement of a follower, a parting
    shot), kept so that every page still draws them once it is resolved: both parties as they rolled, the story
    points each spent, and whose die won."""

    kind: ContestKind
    round: int
    first: Party
    second: Party
    target: str | None  # an assist's beneficiary
    spent: dict[str, int]  # story points spent, by contestant
    won: int | None  # 0: the first party's die won, 1: the second's; None: a standoff


class ChartPoint(msgspec.Struct, frozen=True):
    """The tallies after a resolved contest, for the chart over the rounds."""

    round: int
    kind: ContestKind
    tallies: dict[str, int]


class ScoredView(msgspec.Struct, frozen=True, tag_field="type", tag="scored.view"):
    prize: str
    round: int
    phase: Phase
    initiative: str | None
    responder: str | None
    tactics: dict[str, Tactic]  # revealed tactics of this round
    contestants: list[ContestantView]
    score: dict[str, str]  # per main contestant: "leading 4–0", "behind 0–4", "tied 2–2"
    pending: PendingView | None
    next_assist: dict[str, str]  # the resistance the next assist to each tally faces
    chart: list[ChartPoint]  # the newest CHART_POINTS
    last: ContestResolved | None
    outcome: SequenceDecided | None
    players_type_faces: bool
    # who may be the target of a parting shot now: taken out since the last round started
    parting_shot_targets: list[str] = []
    last_roll: RolledView | None = None  # the dice of the newest contest resolved
