"""Public types of the `extended` ruleset (QuestWorlds extended contest): setup, commands, events, view."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import Dice

BetterRoll = Literal["low", "high"]
ActionKind = Literal["normal", "asymmetrical", "unrelated"]
Phase = Literal["declaring", "ready", "rolled", "decided", "over"]  # over: the GM concluded the contest

# Every number and text a client sends is bounded here, at decoding: a value outside gets
# ``protocol/bad_field`` naming the field, and no rules computation ever sees it.
MAX_NUMBER = 1_000_000
"""The largest modifier, augment, followers' AP, edge, bid or AP adjustment (either sign)."""

Number = Annotated[int, msgspec.Meta(ge=-MAX_NUMBER, le=MAX_NUMBER)]
Bid = Annotated[int, msgspec.Meta(ge=-MAX_NUMBER, le=MAX_NUMBER)]
HeroPoints = Annotated[int, msgspec.Meta(ge=0, le=100)]
Face = Annotated[int, msgspec.Meta(ge=-100, le=100)]
RatingText = Annotated[str, msgspec.Meta(min_length=1, max_length=12, pattern="^[ 0-9WwMm+\\-\u2212\u2013]+$")]
"""A rating as written (``14``, ``5W``, ``5W2``); its meaning is checked by the rules (``rules/bad_rating``)."""
Id = Annotated[str, msgspec.Meta(max_length=64)]
Name = Annotated[str, msgspec.Meta(max_length=200)]
Text = Annotated[str, msgspec.Meta(max_length=2000)]


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Contestant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One side's contestant. Controlled by the player whose seat names it, otherwise by the GM."""

    id: Id
    name: Name
    ability: Name
    rating: RatingText  # "14", "5W", "5W2"
    modifier: Number = 0  # situational modifiers, added to the value
    augment: Number = 0  # augments, added to the value
    followers_ap: Number = 0  # AP of followers added at the start
    edge: Number = 0  # ^N; negative for a handicap
    hero_points: HeroPoints = 0


class ExtendedSetup(_Msg, frozen=True, tag="extended.setup"):
    prize: Text
    contestants: Annotated[list[Contestant], msgspec.Meta(max_length=64)]
    better_roll: BetterRoll = "low"
    players_type_faces: bool = False  # physical dice: a player may type in the faces of their own exchange


# --- the sealed declaration -------------------------------------------------------------------------


class Intent(_Msg, frozen=True, tag="extended.intent"):
    """A contestant's plan for its exchange this round; sealed until every contestant has declared."""

    action: Text = ""
    bid: Bid | None = None  # no bid: the GM's default, 3
    kind: ActionKind = "normal"
    ability: Name | None = None  # switch to another ability for this exchange (AP unchanged)
    rating: RatingText | None = None  # its rating; required with ability
    resistance: RatingText | None = None  # unrelated action resolved as a simple contest against this rating


# --- commands -----------------------------------------------------------------------------------------


class SetOrder(_Msg, frozen=True, tag="extended.set_order"):
    """GM: who acts first this round (before the round's first roll)."""

    order: Annotated[list[Id], msgspec.Meta(max_length=64)]


class ProposeBid(_Msg, frozen=True, tag="extended.propose_bid"):
    """GM: suggest a different bid for a contestant's declared action."""

    contestant: Id
    bid: Bid


class AcceptBid(_Msg, frozen=True, tag="extended.accept_bid"):
    """The contestant's controller accepts the GM's proposed bid."""

    contestant: str


class Roll(_Msg, frozen=True, tag="extended.roll"):
    """Roll the current exchange. Physical dice: the faces, actor's first (null for a side with no die)."""

    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class SpendHeroPoint(_Msg, frozen=True, tag="extended.spend_hero_point"):
    contestant: str


class PassHeroPoint(_Msg, frozen=True, tag="extended.pass_hero_point"):
    contestant: str


class Confirm(_Msg, frozen=True, tag="extended.confirm"):
    """GM: apply the rolled exchange now."""


class PartingShot(_Msg, frozen=True, tag="extended.parting_shot"):
    """The victor acts once more against the opponent it just defeated."""

    contestant: Id
    bid: Bid | None = None
    action: Text = ""
    ability: Name | None = None
    rating: RatingText | None = None


class Adjust(_Msg, frozen=True, tag="extended.adjust"):
    """GM: correct a contestant's AP by ``delta``, with a reason."""

    contestant: Id
    delta: Number
    reason: Text


Command = SetOrder | ProposeBid | AcceptBid | Roll | SpendHeroPoint | PassHeroPoint | Confirm | PartingShot | Adjust


# --- events -------------------------------------------------------------------------------------------


class RoundStarted(_Msg, frozen=True, tag="extended.round_started"):
    round: int
    order: list[str]


class OrderSet(_Msg, frozen=True, tag="extended.order_set"):
    order: list[str]


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


class ApAdjusted(_Msg, frozen=True, tag="extended.ap_adjusted"):
    contestant: str
    delta: int
    reason: str


class ContestDecided(_Msg, frozen=True, tag="extended.contest_decided"):
    winner: str | None
    loser: str | None
    loser_ap: int
    level: str  # Marginal, Minor, Major, Complete; "Tie" when both fell together
    consequence: str
    benefit: str


class PartingShotTaken(_Msg, frozen=True, tag="extended.parting_shot_taken"):
    """The victor acts again against the opponent it just defeated; the exchange is rolled next."""

    contestant: str
    intent: Intent


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
    out: bool


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
    hero_points_pending: list[str]


class ExtendedView(msgspec.Struct, frozen=True):
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
