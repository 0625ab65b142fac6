"""Public types of the `extended` ruleset (QuestWorlds extended contest): setup, commands, events, view."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import (
    MAX_LISTED,
    ApChart,
    Dice,
    Face,
    HeroPoints,
    HeroPointWindow,
    Id,
    Name,
    Number,
    QuestRoll,
    RatedContestant,
    RatingText,
    Text,
)

BetterRoll = Literal["low", "high"]
ActionKind = Literal["normal", "asymmetrical", "unrelated"]
Phase = Literal["declaring", "ready", "rolled", "decided", "over"]  # over: the GM concluded the contest
Daring = Literal["cautious", "bold", "daring", "reckless"]  # how risky a declared action is, least first
OrderMode = Literal["daring", "bid", "ap"]  # the GM's three ways of ordering a group round (seed 000 §5.3.3)

# Every number and text a client sends is bounded, at decoding (see protocol.common): a value outside gets
# ``protocol/bad_field`` naming the field, and no rules computation ever sees it.
Bid = Number  # a bid, or AP lent or given
MAX_FOLLOWERS = 16
"""The most followers adding their AP to one contestant of a new contest (docs/rules/extended.md, "Table limits";
checked when it is created, like ``MAX_CONTESTANTS``)."""


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Follower(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A follower whose relevant ability adds its value (modifiers included) to its leader's starting AP."""

    name: Name
    rating: RatingText
    modifier: Number = 0


class Contestant(RatedContestant, frozen=True, forbid_unknown_fields=True):
    """A contestant. Controlled by the player whose seat names it, otherwise by the GM."""

    side: Id | None = None  # contestants sharing a side fight together; none: a side of its own
    # followers adding their AP at the start (they cannot lend it again)
    followers: Annotated[list[Follower], msgspec.Meta(max_length=MAX_LISTED)] = []


class ExtendedSetup(_Msg, frozen=True, tag="extended.setup"):
    prize: Text
    contestants: Annotated[list[Contestant], msgspec.Meta(max_length=MAX_LISTED)]
    better_roll: BetterRoll = "low"
    players_type_faces: bool = False  # physical dice: a player may type in the faces of their own exchange
    hero_point_window: HeroPointWindow = "always"  # whose answer a rolled exchange waits for (see docs)


# --- the sealed declaration -------------------------------------------------------------------------


class Intent(_Msg, frozen=True, tag="extended.intent"):
    """A contestant's plan for its exchange this round; sealed until every contestant has declared."""

    action: Text = ""
    bid: Bid | None = None  # no bid: the GM's default, 3
    kind: ActionKind = "normal"
    ability: Name | None = None  # switch to another ability for this exchange (AP unchanged)
    rating: RatingText | None = None  # its rating; required with ability
    resistance: RatingText | None = None  # unrelated action resolved as a simple contest against this rating
    daring: Daring = "bold"  # for the order of a group round; the GM may rank it otherwise
    # the opponents singled out, in order; none in a duel: the opponent
    targets: Annotated[list[Id], msgspec.Meta(max_length=MAX_LISTED)] | None = None


# --- commands -----------------------------------------------------------------------------------------


class SetOrder(_Msg, frozen=True, tag="extended.set_order"):
    """GM: who acts first this round (before the round's first roll)."""

    order: Annotated[list[Id], msgspec.Meta(max_length=MAX_LISTED)]


class OrderBy(_Msg, frozen=True, tag="extended.order_by"):
    """GM: order the round by daring, by bid or by AP total, with the seed's tie-breaks."""

    mode: OrderMode


class RankDaring(_Msg, frozen=True, tag="extended.rank_daring"):
    """GM: rank a revealed action's daring otherwise than declared."""

    contestant: Id
    daring: Daring


class Delay(_Msg, frozen=True, tag="extended.delay"):
    """Let the others act first; the contestant acts at the end of the round unless it jumps back in."""

    contestant: Id


class JumpIn(_Msg, frozen=True, tag="extended.jump_in"):
    """A delaying contestant acts next."""

    contestant: Id


class AllowChange(_Msg, frozen=True, tag="extended.allow_change"):
    """GM: let a contestant change its revealed action (retarget) before it acts."""

    contestant: Id


class ChangeIntent(_Msg, frozen=True, tag="extended.change_intent"):
    """Change a revealed action before acting: a player once the GM allowed it, the GM for any contestant."""

    contestant: Id
    intent: Intent


class PassTurn(_Msg, frozen=True, tag="extended.pass_turn"):
    """The contestant does nothing this round (e.g. its target is out and it may not change)."""

    contestant: Id


class FinalAction(_Msg, frozen=True, tag="extended.final_action"):
    """A defeated PC in a group contest spends a hero point to try to rejoin (table 5.3.5.1)."""

    contestant: Id
    ability: Name | None = None  # none: the ability it fights with
    rating: RatingText | None = None
    # physical dice: the contestant's face, then the resistance's
    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class Disengage(_Msg, frozen=True, tag="extended.disengage"):
    """On its turn, a contestant tries to leave the contest (table 5.3.10.1)."""

    contestant: Id
    opponent: Id | None = None  # who keeps it in; none in a duel: the opponent
    ability: Name | None = None
    rating: RatingText | None = None  # none: the rating it fights with
    resistance: RatingText | None = None  # the opponent's counter; none: the opponent's rating
    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class Rejoin(_Msg, frozen=True, tag="extended.rejoin"):
    """A withdrawn contestant comes back with the AP it left with."""

    contestant: Id


class Lend(_Msg, frozen=True, tag="extended.lend"):
    """On its turn, a contestant tries to lend AP to another on its side (table 5.3.11.1)."""

    lender: Id
    target: Id
    ap: Bid
    ability: Name | None = None
    rating: RatingText | None = None  # none: the rating the lender fights with
    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class Gift(_Msg, frozen=True, tag="extended.gift"):
    """Someone not in the contest gives AP to a contestant (table 5.3.12.1)."""

    giver: Id  # a character not in the contest
    rating: RatingText  # the giver's ability
    recipient: Id
    bid: Bid
    opponent: Id | None = None  # who gains on a defeat; none: the recipient's last opponent
    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class GrantHeroPoints(_Msg, frozen=True, tag="extended.grant_hero_points"):
    """GM: give a PC hero points."""

    contestant: Id
    points: HeroPoints = 1
    reason: Text = ""


class DeclinePartingShot(_Msg, frozen=True, tag="extended.decline_parting_shot"):
    """The victor lets the defeated opponent go without a parting shot (its controller, or the GM for a player
    who does not answer)."""

    contestant: Id


class ProposeBid(_Msg, frozen=True, tag="extended.propose_bid"):
    """GM: suggest a different bid for a contestant's declared action."""

    contestant: Id
    bid: Bid


class AcceptBid(_Msg, frozen=True, tag="extended.accept_bid"):
    """The contestant's controller accepts the GM's proposed bid."""

    contestant: Id


class Roll(_Msg, frozen=True, tag="extended.roll"):
    """Roll the current exchange. Physical dice: the faces, actor's first (null for a side with no die)."""

    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class SpendHeroPoint(_Msg, frozen=True, tag="extended.spend_hero_point"):
    """After the dice: bump the PC's own result one step, once per exchange. Offered (``hero_points_pending``)
    only when the step would change what the exchange does: the AP either side loses or gains; in an
    asymmetrical exchange whether the actor wins; in a group contest whether it is a Fumble-against-Fumble
    tie. Otherwise refused ``rules/hero_point_no_effect`` (taking away a win whose stake a handicap cut to 0
    moves nothing)."""

    contestant: Id


class PassHeroPoint(_Msg, frozen=True, tag="extended.pass_hero_point"):
    """After the dice: let the PC's result stand (the answer the exchange waits for, with or without a hero
    point)."""

    contestant: Id


class Confirm(_Msg, frozen=True, tag="extended.confirm"):
    """GM: apply the rolled exchange now. ``group_tie``: a Fumble-against-Fumble tie in a group contest
    costs both contestants ½ the bid (seed 000, the note to table 5.3.1.1)."""

    group_tie: bool = False


class PartingShot(_Msg, frozen=True, tag="extended.parting_shot"):
    """The victor acts once more against the opponent it just defeated."""

    contestant: Id
    bid: Bid | None = None
    action: Text = ""
    ability: Name | None = None
    rating: RatingText | None = None
    target: Id | None = None  # the opponent it just defeated; none: the only one


class Adjust(_Msg, frozen=True, tag="extended.adjust"):
    """GM: correct a contestant's AP by ``delta``, with a reason."""

    contestant: Id
    delta: Number
    reason: Text


Command = (
    SetOrder
    | ProposeBid
    | AcceptBid
    | Roll
    | SpendHeroPoint
    | PassHeroPoint
    | Confirm
    | PartingShot
    | Adjust
    | OrderBy
    | RankDaring
    | Delay
    | JumpIn
    | AllowChange
    | ChangeIntent
    | PassTurn
    | FinalAction
    | Disengage
    | Rejoin
    | Lend
    | Gift
    | GrantHeroPoints
    | DeclinePartingShot
)


# --- events -------------------------------------------------------------------------------------------


class RoundStarted(_Msg, frozen=True, tag="extended.round_started"):
    round: int
    order: list[str]


class OrderSet(_Msg, frozen=True, tag="extended.order_set"):
    order: list[str]
    mode: OrderMode | None = None  # none: the GM's explicit order


class BidProposed(_Msg, frozen=True, tag="extended.bid_proposed"):
    contestant: str
    bid: int


class BidAccepted(_Msg, frozen=True, tag="extended.bid_accepted"):
    contestant: str
    bid: int


class ExchangeRolled(_Msg, frozen=True, tag="extended.exchange_rolled"):
    exchange: int
    actor: str
    defender: str
    bid: int
    kind: ActionKind
    parting_shot: bool
    dice: Dice | None
    actor_face: int | None
    defender_face: int | None
    actor_level: str  # after masteries
    defender_level: str
    actor_value: int  # the ability values that rolled (for the "6 or more below" rule)
    defender_value: int
    resistance: str | None = None  # an unrelated action rolled against this rating instead of the defender


class HeroPointSpent(_Msg, frozen=True, tag="extended.hero_point_spent"):
    contestant: str
    level: str  # the result after the bump


class HeroPointPassed(_Msg, frozen=True, tag="extended.hero_point_passed"):
    contestant: str


class ExchangeApplied(_Msg, frozen=True, tag="extended.exchange_applied"):
    exchange: int
    winner: str | None  # None: a tie
    loser: str | None
    lost: int  # AP the loser lost
    gained: int  # AP the winner gained (a transfer)
    result: str  # "tie", "exchange", "asymmetrical win", or a simple contest result for an unrelated action
    both_lost: int = 0  # the group tie option: actor and defender each lose this


class ApAdjusted(_Msg, frozen=True, tag="extended.ap_adjusted"):
    contestant: str
    delta: int
    reason: str


class ContestantOutcome(msgspec.Struct, frozen=True):
    """One contestant's own outcome: a victory or defeat by table 5.3.3.1, or none (it withdrew, or it
    won without ever engaging a defeated opponent)."""

    contestant: str
    side: str
    result: Literal["victory", "defeat", "withdrew", "none"]
    level: str | None  # Marginal, Minor, Major, Complete
    consequence: str | None  # the loser's
    benefit: str | None  # the winner's
    by_ap: int | None  # the final AP that decided it: its own if defeated, else its last opponent's


class SideOutcome(msgspec.Struct, frozen=True):
    """A side's overall outcome: when it won against one opponent, the victory over that opponent (by its
    final AP); otherwise the second-best of its contestants' outcomes when it won, the second-worst when it
    lost (its only one when it has one: a losing side of one contestant has that one's); a Marginal victory
    (defeat) when the one picked is a defeat (victory)."""

    side: str
    result: Literal["victory", "defeat", "none"]
    level: str | None
    from_contestant: str | None  # whose individual outcome it is


class ContestDecided(_Msg, frozen=True, tag="extended.contest_decided"):
    winner: str | None
    loser: str | None
    loser_ap: int
    level: str  # Marginal, Minor, Major, Complete; "Both defeated" when both fell together
    consequence: str
    benefit: str
    winning_side: str | None = None
    outcomes: list[ContestantOutcome] = []
    sides: list[SideOutcome] = []


class PartingShotTaken(_Msg, frozen=True, tag="extended.parting_shot_taken"):
    """The victor acts again against the opponent it just defeated; the exchange is rolled next."""

    contestant: str
    intent: Intent
    target: str | None = None  # none: the duel's loser


class PartingShotDeclined(_Msg, frozen=True, tag="extended.parting_shot_declined"):
    contestant: str


class DaringRanked(_Msg, frozen=True, tag="extended.daring_ranked"):
    contestant: str
    daring: Daring


class Delayed(_Msg, frozen=True, tag="extended.delayed"):
    contestant: str


class JumpedIn(_Msg, frozen=True, tag="extended.jumped_in"):
    contestant: str


class ChangeAllowed(_Msg, frozen=True, tag="extended.change_allowed"):
    contestant: str


class IntentChanged(_Msg, frozen=True, tag="extended.intent_changed"):
    contestant: str
    intent: Intent


class TurnPassed(_Msg, frozen=True, tag="extended.turn_passed"):
    contestant: str


class SimpleRoll(msgspec.Struct, frozen=True):
    """A simple contest inside the extended contest: the dice, both results after masteries, and the
    result for the side that acted (e.g. "Minor Victory", "Tie")."""

    dice: Dice | None
    faces: list[int | None]  # the acting side's, then the resistance's (none: no die, a value of 0 or less)
    levels: list[str]
    resistance: str | None  # the rating rolled against; none: another contestant's, which this viewer may not see
    result: str


class FinalActionTaken(_Msg, frozen=True, tag="extended.final_action_taken"):
    contestant: str
    roll: SimpleRoll
    ap: int  # its AP afterwards


class DisengageRolled(_Msg, frozen=True, tag="extended.disengage_rolled"):
    contestant: str
    opponent: str
    roll: SimpleRoll
    withdrawn: bool
    transferred: int  # AP given to the opponent on a defeat


class Rejoined(_Msg, frozen=True, tag="extended.rejoined"):
    contestant: str


class LoanResolved(_Msg, frozen=True, tag="extended.loan_resolved"):
    lender: str
    target: str
    ap: int  # attempted
    roll: SimpleRoll
    target_gains: int  # negative on a Complete Defeat
    lender_loses: int


class GiftResolved(_Msg, frozen=True, tag="extended.gift_resolved"):
    giver: str
    recipient: str
    opponent: str
    bid: int
    roll: SimpleRoll
    recipient_gains: int
    opponent_gains: int


class HeroPointsGranted(_Msg, frozen=True, tag="extended.hero_points_granted"):
    """The GM gave a PC hero points. Whom, how many and why are told only to the GM and that PC's player:
    everyone else receives this event with ``contestant`` and ``points`` None and no reason."""

    contestant: str | None
    points: int | None
    reason: str = ""


class ContestResumed(_Msg, frozen=True, tag="extended.contest_resumed"):
    """A failed parting shot brought the defeated contestant back above 0 AP."""

    contestant: str


Event = (
    RoundStarted
    | OrderSet
    | BidProposed
    | BidAccepted
    | ExchangeRolled
    | HeroPointSpent
    | HeroPointPassed
    | ExchangeApplied
    | ApAdjusted
    | ContestDecided
    | PartingShotTaken
    | ContestResumed
    | PartingShotDeclined
    | DaringRanked
    | Delayed
    | JumpedIn
    | ChangeAllowed
    | IntentChanged
    | TurnPassed
    | FinalActionTaken
    | DisengageRolled
    | Rejoined
    | LoanResolved
    | GiftResolved
    | HeroPointsGranted
)


# --- what a viewer sees -------------------------------------------------------------------------------


class ContestantView(msgspec.Struct, frozen=True):
    id: str
    name: str
    ability: str
    rating: str | None  # hidden from those who neither control it nor are GM
    ap: int | None  # hidden until it first changes (AP knowledge)
    starting_ap: int | None
    hero_points: int | None
    controlled_by_you: bool
    out: bool  # at 0 AP or less
    side: str = ""
    withdrawn: bool = False
    final_action_used: bool = False
    followers: list[str] = []


class ExchangeView(msgspec.Struct, frozen=True):
    number: int
    actor: str
    defender: str
    bid: int
    kind: ActionKind
    parting_shot: bool
    actor_face: int | None
    defender_face: int | None
    actor_level: str
    defender_level: str
    hero_points_spent: list[str]
    hero_points_pending: list[str]  # who may still spend one, shown only to the GM and its own player
    answers_pending: list[str] = []  # whose player must still let the result stand or spend a hero point


class ShotUnderWay(msgspec.Struct, frozen=True):
    """A parting shot taken and not yet applied: who shoots at whom, with what bid and action (public)."""

    shooter: str  # the victor: the next to roll (``next_actor``) until the shot's dice are down
    target: str  # the opponent it just defeated, whose die is the shot's second
    bid: int
    action: str = ""


class ExtendedView(msgspec.Struct, frozen=True, tag_field="type", tag="extended.view"):
    prize: str
    round: int
    phase: Phase
    order: list[str]
    next_actor: str | None
    contestants: list[ContestantView]
    intents: dict[str, Intent]  # revealed intents of this round
    proposals: dict[str, int]
    exchange: ExchangeView | None
    last: ExchangeApplied | None
    outcome: ContestDecided | None
    better_roll: BetterRoll
    players_type_faces: bool = False  # physical dice: the acting contestant's player may type the faces
    group: bool = False  # three or more contestants
    order_mode: OrderMode | None = None
    ordered: bool = False  # the GM has set this round's order (by daring, bid, AP total or by hand)
    acted: list[str] = []  # who has acted this round
    delayed: list[str] = []  # who is delaying (acts at the end unless it jumps in)
    targets_left: list[str] = []  # the acting contestant's targets still to engage
    daring: dict[str, Daring] = {}  # the round's daring, as declared or ranked by the GM
    changes_allowed: list[str] = []
    parting_shots: dict[str, str] = {}  # victor -> the opponent it just defeated (a shot it may still take)
    shot_under_way: ShotUnderWay | None = None  # the parting shot taken, until its exchange is applied
    chart: ApChart = msgspec.field(default_factory=ApChart)  # AP over the exchanges (the newest 200 points)
    last_roll: QuestRoll | None = None  # the dice of the newest roll applied: an exchange's or a simple contest's
