"""Public types of the `karbon` ruleset (Karbon dice-pool contests, one log per scene): setup, commands,
events, the sealed risk declaration and the view."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import Dice, Face, Id

Side = Literal["agent", "narrator"]
Place = Literal["pool", "reserve", "agent", "narrator", "spent"]
Draw = Literal["random", "choose"]
HandsAfter = Literal["spent", "pool"]
Result = Literal["hit", "miss", "turncoat"]
Payout = Literal["break", "glitch"]
Mark = Literal["X", "O"]
Outcome = Literal["won", "lost", "unclear"]
Difficulty = Literal["easy", "moderate", "difficult"]
Opposition = Literal["one", "several", "many"]
Scope = Literal["minor", "moderate", "major"]
ChipPile = Literal["hand", "stack"]
Phase = Literal["between", "drawing", "declaring", "ready", "test", "aftermath"]

# the player's choices after a break and after a glitch, and the options within them
BreakChoice = Literal["security", "footing", "advantage"]
FootingOption = Literal["discard", "dice"]
GlitchChoice = Literal["hurt", "plans", "side_swiped"]
HurtOption = Literal["injury", "condition"]
PlansOption = Literal["dice", "peril"]
SideSwipedOption = Literal["chips", "dice"]
Aftermath = Literal["blackout", "madness"]

# Every number and text a client sends is bounded here, at decoding: a value outside gets
# ``protocol/bad_field`` naming the field, and no rules computation ever sees it. The rules then check the
# finer limits of each stat (``rules/bad_stats``) and of every count the scene keeps (``rules/bad_delta``).
MAX_NUMBER = 1_000
"""The largest stat, guide answer, chip count or correction a client sends (either sign)."""
MAX_FORTUNE = 100
"""The largest Fortune: the setup's, and what a correction may raise it to."""
MAX_DICE = 32
"""The most dice a list names: the scene has 20 (15 in the main pool, 5 in the reserve)."""
MAX_PERIL_DICE = 64
"""The most peril faces a physical roll lists (the peril itself stays far below)."""

Number = Annotated[int, msgspec.Meta(ge=-MAX_NUMBER, le=MAX_NUMBER)]
Fortune = Annotated[int, msgspec.Meta(ge=0, le=MAX_FORTUNE)]
DieId = Annotated[str, msgspec.Meta(max_length=16)]
DieIds = Annotated[list[DieId], msgspec.Meta(max_length=MAX_DICE)]
Name = Annotated[str, msgspec.Meta(max_length=80)]
"""The agent's name, and an injury's or condition's label."""
Phrase = Annotated[str, msgspec.Meta(max_length=200)]
"""A contest's goal and ability."""
Text = Annotated[str, msgspec.Meta(max_length=500)]
"""A reason for a change or a correction, and a risky move narrated."""


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class KarbonSetup(_Msg, frozen=True, tag="karbon.setup"):
    """A scene: the agent at its centre, its Fortune, and the scene's settings."""

    agent: Id  # the agent's id; the player seat that names it plays it
    name: Name
    fortune: Fortune = 0  # the agent's full Fortune, which it starts the scene with
    draw: Draw = "random"  # how hands are drawn from the main pool (RULES.md §4)
    hands_after: HandsAfter = "spent"  # where a concluded contest's hand dice go until the next scene
    players_type_faces: bool = False  # physical dice: the agent's player may type in the faces too


# --- the sealed declaration ---------------------------------------------------------------------------


class Risk(_Msg, frozen=True, tag="karbon.risk"):
    """The agent's player, before the round's dice: does the agent put it all on the line?"""

    all_in: bool
    move: Text = ""  # the risky move, narrated


# --- the GM's helpers for the contest's stats (seed: Determining Challenge, Setting Consequence) -------


class ChallengeGuide(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    difficulty: Difficulty
    profile: bool = False  # a profile is involved: +1
    element: bool = False  # the profile has an applicable element: +1
    opposition: Opposition = "one"  # several people: +1, many: +2
    factors: Number = 0  # each significant other factor: +1


class ConsequenceGuide(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    scope: Scope  # minor 1 win, moderate 2, major 3
    major_extra: Number = 0  # a major contest may need more than three wins
    profiles: Number = 0  # +1 each
    assets: Number = 0  # requisite assets, paid or not: +1 each
    fictional: Number = 0  # more work but not harder: +0 to +2


# --- commands -----------------------------------------------------------------------------------------


class StartContest(_Msg, frozen=True, tag="karbon.start_contest"):
    """GM: a new contest of the scene. Give ``challenge`` or ``challenge_guide``, ``consequence`` or
    ``consequence_guide``. ``peril`` is 0–2; ``injuries`` (the value of applicable injuries) adds to it."""

    goal: Phrase
    ability: Phrase
    level: Number
    challenge: Number | None = None
    challenge_guide: ChallengeGuide | None = None
    consequence: Number | None = None
    consequence_guide: ConsequenceGuide | None = None
    peril: Number = 0
    injuries: Number = 0


class DrawHands(_Msg, frozen=True, tag="karbon.draw_hands"):
    """GM, when hands are named (physical dice or the `choose` setting): the pool dice each hand takes."""

    agent: DieIds
    narrator: DieIds


class ChangeChallenge(_Msg, frozen=True, tag="karbon.change_challenge"):
    """GM: a new challenge mid-contest. Raising it draws the difference into the narrator's hand; lowering
    it returns the named narrator dice to the pool. ``dice``: the dice named (named draws, or returns)."""

    challenge: Number
    dice: DieIds | None = None
    reason: Text = ""


class ChangePeril(_Msg, frozen=True, tag="karbon.change_peril"):
    peril: Number
    reason: Text = ""


class Roll(_Msg, frozen=True, tag="karbon.roll"):
    """Roll the round: both hands, the risk dice if the agent is all in, the peril dice.

    Physical dice: ``faces`` by die id for every die in both hands, ``risk`` the 3 d8, ``peril`` one d8 per
    peril die, and ``drawn`` the pool dice the risk's hits took (one per hit while the pool lasts)."""

    faces: Annotated[dict[DieId, Face], msgspec.Meta(max_length=MAX_DICE)] | None = None
    risk: Annotated[list[Face], msgspec.Meta(max_length=MAX_DICE)] | None = None
    peril: Annotated[list[Face], msgspec.Meta(max_length=MAX_PERIL_DICE)] | None = None
    drawn: DieIds | None = None


class Stack(_Msg, frozen=True, tag="karbon.stack"):
    """The round's winner (both on a tie) moves chips from hand to its stack in the test."""

    side: Side
    chips: Number


class EndTest(_Msg, frozen=True, tag="karbon.end_test"):
    """A side stacks no more this test."""

    side: Side


class ChooseBreak(_Msg, frozen=True, tag="karbon.choose_break"):
    """The agent's player after a break. ``footing`` needs ``option``; ``dice`` names the narrator's two
    dice (footing with option ``dice``) or the hand dice traded away (``advantage``); ``reserve`` names the
    reserve dice taken in trade."""

    choice: BreakChoice
    option: FootingOption | None = None
    dice: DieIds | None = None
    reserve: DieIds | None = None


class ChooseGlitch(_Msg, frozen=True, tag="karbon.choose_glitch"):
    """The agent's player after a glitch. ``side_swiped`` needs ``option`` (chips or dice) and, for dice,
    the narrator's dice in ``dice``."""

    choice: GlitchChoice
    option: SideSwipedOption | None = None
    dice: DieIds | None = None


class NarratorOption(_Msg, frozen=True, tag="karbon.narrator_option"):
    """GM, after the player chose ``hurt`` (injury or condition, with a label) or ``plans`` (dice or
    peril; named dice when draws are named)."""

    option: Literal["injury", "condition", "dice", "peril"]
    label: Name = ""
    dice: DieIds | None = None


class ChooseAftermath(_Msg, frozen=True, tag="karbon.choose_aftermath"):
    """The agent's player, after a loss at zero Fortune: a Blackout or a Moment of Madness."""

    aftermath: Aftermath


class SuddenDeath(_Msg, frozen=True, tag="karbon.sudden_death"):
    """The agent's player, after an unclear conclusion: a one-win contest with the same stats."""


class BackOut(_Msg, frozen=True, tag="karbon.back_out"):
    """The GM or the agent's player: back out of the contest being played, to set up another (its goal,
    ability or consequence cannot change otherwise). It ends with no outcome; its chips and marks go with
    it, and its hands go where a concluded contest's go."""

    reason: Text = ""


class Adjust(_Msg, frozen=True, tag="karbon.adjust"):
    """GM: correct a chip count or the agent's Fortune by ``delta``, with a reason. The count stays between
    0 and its limit (Fortune ``MAX_FORTUNE``, chips in hand the rules' limit, a stack below five)."""

    target: Literal["agent_hand", "agent_stack", "narrator_hand", "narrator_stack", "fortune"]
    delta: Number
    reason: Text


Command = (
    StartContest
    | DrawHands
    | ChangeChallenge
    | ChangePeril
    | Roll
    | Stack
    | EndTest
    | ChooseBreak
    | ChooseGlitch
    | NarratorOption
    | ChooseAftermath
    | SuddenDeath
    | Adjust
    | BackOut
)


# --- events -------------------------------------------------------------------------------------------


class DieSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    sides: int


class SceneStarted(_Msg, frozen=True, tag="karbon.scene_started"):
    """The scene's dice: the main pool and the reserve, reset."""

    pool: list[DieSpec]
    reserve: list[DieSpec]


class ContestStarted(_Msg, frozen=True, tag="karbon.contest_started"):
    contest: int
    goal: str
    ability: str
    level: int
    challenge: int
    consequence: int  # wins needed: the victory track's length
    peril: int  # base peril plus injuries
    sudden_death: bool = False


class HandsDrawn(_Msg, frozen=True, tag="karbon.hands_drawn"):
    """The contest's hands, drawn from the main pool: the agent's *level* dice, then the narrator's
    *challenge* dice from what is left. ``roll`` is the random draw (face j picks among the pool dice left,
    in id order), None when the dice were named."""

    agent: list[str]
    narrator: list[str]
    roll: Dice | None = None


class DiceMoved(_Msg, frozen=True, tag="karbon.dice_moved"):
    """Real dice change place. ``roll`` is the draw that picked them at random, if any (face j picks
    among the candidates left, in id order)."""

    dice: list[str]
    to: Place
    why: str
    roll: Dice | None = None


class ChallengeChanged(_Msg, frozen=True, tag="karbon.challenge_changed"):
    challenge: int
    reason: str = ""


class PerilChanged(_Msg, frozen=True, tag="karbon.peril_changed"):
    peril: int
    reason: str = ""


class RoundStarted(_Msg, frozen=True, tag="karbon.round_started"):
    round: int


class RolledDie(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    die: str
    sides: int
    face: int
    result: Result


class RoundRolled(_Msg, frozen=True, tag="karbon.round_rolled"):
    round: int
    roll: Dice
    agent: list[RolledDie]
    narrator: list[RolledDie]
    agent_hits: int
    agent_turncoats: int
    narrator_hits: int
    narrator_turncoats: int
    winner: Side | None  # None: a tie in hits
    opening: Side | None  # the side that offers an opening (most turncoats); None on a tie
    all_in: bool
    risk: list[int]  # the 3 d8 of an agent all in
    peril: list[int]  # the peril d8


class ChipsChanged(_Msg, frozen=True, tag="karbon.chips_changed"):
    side: Side
    pile: ChipPile
    delta: int
    why: str


class StackPaidOut(_Msg, frozen=True, tag="karbon.stack_paid_out"):
    """A stack reached five: it empties and pays out (agent: a break, marking X; narrator: a glitch, O)."""

    side: Side
    payout: Payout


class TestEnded(_Msg, frozen=True, tag="karbon.test_ended"):
    side: Side


class BreakChosen(_Msg, frozen=True, tag="karbon.break_chosen"):
    choice: BreakChoice
    option: FootingOption | None = None


class GlitchChosen(_Msg, frozen=True, tag="karbon.glitch_chosen"):
    choice: GlitchChoice
    option: SideSwipedOption | None = None


class NarratorOptionChosen(_Msg, frozen=True, tag="karbon.narrator_option_chosen"):
    option: Literal["injury", "condition", "dice", "peril"]
    label: str = ""


class WinErased(_Msg, frozen=True, tag="karbon.win_erased"):
    """Side-swiped: one X leaves the victory track."""


class ContestConcluded(_Msg, frozen=True, tag="karbon.contest_concluded"):
    contest: int
    wins: int
    losses: int
    outcome: Outcome
    fortune_before: int
    fortune: int  # after the end-of-contest Fortune rule


class BackedOut(_Msg, frozen=True, tag="karbon.backed_out"):
    """The contest ends with no outcome: ``by`` the agent's player (``agent``) or the GM (``narrator``)."""

    contest: int
    by: Side
    reason: str = ""


class AftermathChosen(_Msg, frozen=True, tag="karbon.aftermath_chosen"):
    aftermath: Aftermath


class FortuneAdjusted(_Msg, frozen=True, tag="karbon.fortune_adjusted"):
    delta: int
    reason: str


Event = (
    SceneStarted
    | ContestStarted
    | HandsDrawn
    | DiceMoved
    | ChallengeChanged
    | PerilChanged
    | RoundStarted
    | RoundRolled
    | ChipsChanged
    | StackPaidOut
    | TestEnded
    | BreakChosen
    | GlitchChosen
    | NarratorOptionChosen
    | WinErased
    | ContestConcluded
    | AftermathChosen
    | FortuneAdjusted
    | BackedOut
)


# --- what a viewer sees -------------------------------------------------------------------------------


class DieView(msgspec.Struct, frozen=True):
    id: str
    sides: int


class SideView(msgspec.Struct, frozen=True):
    hand: list[DieView]
    chips: int  # in hand
    stack: int


class ContestInfo(msgspec.Struct, frozen=True):
    number: int
    goal: str
    ability: str
    level: int
    challenge: int
    consequence: int
    peril: int
    sudden_death: bool
    round: int
    track: list[Mark]  # X and O marks in the order they were made


class PendingView(msgspec.Struct, frozen=True):
    """What the table waits for: a break or glitch choice (the player's), or the narrator's option."""

    payout: Payout
    chooser: Side
    choice: str | None  # the player's choice once made, while the narrator picks its option


class KarbonView(msgspec.Struct, frozen=True, tag_field="type", tag="karbon.view"):
    agent: str
    name: str
    played: bool  # a player seat plays the agent (else the GM does)
    players_type_faces: bool
    fortune: int
    full_fortune: int
    injuries: list[str]
    conditions: list[str]
    aftermaths: list[Aftermath]
    draw: Draw
    phase: Phase
    pool: list[DieView]
    reserve: list[DieView]
    spent: list[DieView]
    sides: dict[str, SideView]  # "agent", "narrator"
    contest: ContestInfo | None
    all_in: bool | None  # this round's revealed risk
    last_roll: RoundRolled | None
    stacking: list[Side]  # who may still stack in this test
    pending: list[PendingView]
    last_outcome: ContestConcluded | None
    contests: int
