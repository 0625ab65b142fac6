"""Public types of the `extended` ruleset (QuestWorlds extended contest): setup, commands, events, view."""

from __future__ import annotations

from typing import Literal

import msgspec

from protocol.common import Dice

BetterRoll = Literal["low", "high"]
ActionKind = Literal["normal", "asymmetrical", "unrelated"]
Phase = Literal["declaring", "ready", "rolled", "decided", "over"]  # over: the GM concluded the contest


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Contestant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One side's contestant. Controlled by the player whose seat names it, otherwise by the GM."""

    id: str
    name: str
    ability: str
    rating: str  # "14", "5W", "5W2"
    modifier: int = 0  # situational modifiers, added to the value
    augment: int = 0  # augments, added to the value
    followers_ap: int = 0  # AP of followers added at the start
    edge: int = 0  # ^N; negative for a handicap
    hero_points: int = 0


class ExtendedSetup(_Msg, frozen=True, tag="extended.setup"):
    prize: str
    contestants: list[Contestant]
    better_roll: BetterRoll = "low"
    players_type_faces: bool = False  # physical dice: a player may type in the faces of their own exchange


# --- the sealed declaration -------------------------------------------------------------------------


class Intent(_Msg, frozen=True, tag="extended.intent"):
    """A contestant's plan for its exchange this round; sealed until every contestant has declared."""

    action: str = ""
    bid: int | None = None  # no bid: the GM's default, 3
    kind: ActionKind = "normal"
    ability: str | None = None  # switch to another ability for this exchange (AP unchanged)
    rating: str | None = None  # its rating; required with ability
    resistance: str | None = None  # unrelated action resolved as a simple contest against this rating


# --- commands -----------------------------------------------------------------------------------------


class SetOrder(_Msg, frozen=True, tag="extended.set_order"):
    """GM: who acts first this round (before the round's first roll)."""

    order: list[str]


class ProposeBid(_Msg, frozen=True, tag="extended.propose_bid"):
    """GM: suggest a different bid for a contestant's declared action."""

    contestant: str
    bid: int


class AcceptBid(_Msg, frozen=True, tag="extended.accept_bid"):
    """The contestant's controller accepts the GM's proposed bid."""

    contestant: str


class Roll(_Msg, frozen=True, tag="extended.roll"):
    """Roll the current exchange. Physical dice: the faces, actor's first (null for a side with no die)."""

    faces: list[int | None] | None = None


class SpendHeroPoint(_Msg, frozen=True, tag="extended.spend_hero_point"):
    contestant: str


class PassHeroPoint(_Msg, frozen=True, tag="extended.pass_hero_point"):
    contestant: str


class Confirm(_Msg, frozen=True, tag="extended.confirm"):
    """GM: apply the rolled exchange now."""


class PartingShot(_Msg, frozen=True, tag="extended.parting_shot"):
    """The victor acts once more against the opponent it just defeated."""

    contestant: str
    bid: int | None = None
    action: str = ""
    ability: str | None = None
    rating: str | None = None


class Adjust(_Msg, frozen=True, tag="extended.adjust"):
    """GM: correct a contestant's AP by ``delta``, with a reason."""

    contestant: str
    delta: int
    reason: str


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
