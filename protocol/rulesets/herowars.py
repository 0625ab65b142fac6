"""Public types of the `herowars` ruleset (the Hero Wars extended contest variant): setup, commands, events,
view."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import ApChart, Dice, Face, HeroPointWindow, Id, Number, QuestRoll, RatedContestant, Text

Phase = Literal["declaring", "ready", "rolled", "tied", "decided"]
Case = Literal["win", "transfer", "both_failure", "both_fumble", "failure_vs_fumble", "tie"]
"""How an exchange was resolved: the winner and loser tables (``win``, ``transfer`` for a Critical
winner), one of the special cases, or a tie the GM settled."""


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class Contestant(RatedContestant, frozen=True, forbid_unknown_fields=True):
    """One side's contestant, controlled by the player whose seat names it, otherwise by the GM."""


class HerowarsSetup(_Msg, frozen=True, tag="herowars.setup"):
    prize: Text
    contestants: Annotated[list[Contestant], msgspec.Meta(max_length=64)]
    cap_3x: bool = False  # optional rule: no loss or transfer exceeds three times the modified bid
    players_type_faces: bool = False  # physical dice: a player may type in the faces of their own exchange
    hero_point_window: HeroPointWindow = "always"  # whose answer a rolled exchange waits for (see docs)


# --- the sealed declaration -------------------------------------------------------------------------


class Intent(_Msg, frozen=True, tag="herowars.intent"):
    """A contestant's statement of intent and bid for its exchange this round; sealed until both declared."""

    action: Text = ""
    bid: Number | None = None  # no bid: 3


# --- commands -----------------------------------------------------------------------------------------


class SetOrder(_Msg, frozen=True, tag="herowars.set_order"):
    """GM: who acts first this round (before the round's first roll)."""

    order: Annotated[list[Id], msgspec.Meta(max_length=64)]


class Roll(_Msg, frozen=True, tag="herowars.roll"):
    """Roll the current exchange. Physical dice: ``faces`` is ``[actor, defender]``: first the face of the
    contestant whose exchange it is (the view's ``next_actor``, then ``exchange.actor``), then its opponent's;
    null for a side with no die."""

    faces: Annotated[list[Face | None], msgspec.Meta(max_length=8)] | None = None


class SpendHeroPoint(_Msg, frozen=True, tag="herowars.spend_hero_point"):
    """After the dice: bump the hero's own result one step, once per exchange. Offered (``hero_points_pending``)
    only when the step would change what the exchange does: the AP either side loses or gains, or whether it
    is a tie the GM settles; otherwise refused ``rules/hero_point_no_effect`` (a Critical transferring a stake
    the actor's handicap cut to 0 moves nothing either)."""

    contestant: Id


class PassHeroPoint(_Msg, frozen=True, tag="herowars.pass_hero_point"):
    """After the dice: let the hero's result stand (the answer the exchange waits for, with or without a hero
    point)."""

    contestant: Id


class Confirm(_Msg, frozen=True, tag="herowars.confirm"):
    """GM: apply the rolled exchange now."""


class SettleTie(_Msg, frozen=True, tag="herowars.settle_tie"):
    """GM: the result of a tied exchange, decided from the stated intents.

    ``winner`` None: nobody loses. Otherwise the other contestant loses ``loss`` AP, which the winner gains
    when ``transfer``. ``loss`` is at most what the tables can give, four times (three with ``cap_3x``) the
    modified bid of the side that pays, so the limit depends on whom the GM names: naming the actor makes the
    defender pay, and the actor's edge (or handicap) is added to the bid (never below 0); naming the defender
    makes the actor pay the plain bid."""

    winner: Id | None
    loss: Number = 0
    transfer: bool = False
    reason: Text = ""


class Adjust(_Msg, frozen=True, tag="herowars.adjust"):
    """GM: correct a contestant's AP by ``delta``, with a reason."""

    contestant: Id
    delta: Number
    reason: Text


Command = SetOrder | Roll | SpendHeroPoint | PassHeroPoint | Confirm | SettleTie | Adjust


# --- events -------------------------------------------------------------------------------------------


class RoundStarted(_Msg, frozen=True, tag="herowars.round_started"):
    round: int
    order: list[str]


class OrderSet(_Msg, frozen=True, tag="herowars.order_set"):
    order: list[str]


class ExchangeRolled(_Msg, frozen=True, tag="herowars.exchange_rolled"):
    exchange: int
    actor: str
    defender: str
    bid: int
    dice: Dice | None
    actor_face: int | None
    defender_face: int | None
    actor_level: str  # after masteries
    defender_level: str
    both_masteries: bool  # both ratings have masteries (both Failures then count as both Successes)


class HeroPointSpent(_Msg, frozen=True, tag="herowars.hero_point_spent"):
    contestant: str
    level: str  # the result after the bump


class HeroPointPassed(_Msg, frozen=True, tag="herowars.hero_point_passed"):
    contestant: str


class ExchangeTied(_Msg, frozen=True, tag="herowars.exchange_tied"):
    """The exchange is a tie: the GM names its result from the stated intents."""

    exchange: int


class ExchangeApplied(_Msg, frozen=True, tag="herowars.exchange_applied"):
    exchange: int
    case: Case
    winner: str | None  # None: nobody won (both lose, or a tie settled as no loss)
    lost: dict[str, int]  # AP each contestant lost
    gained: int  # AP the winner gained (a transfer)
    capped: bool = False  # the optional rule cut a loss to three times the modified bid
    reason: str = ""  # a settled tie: the GM's reason


class ApAdjusted(_Msg, frozen=True, tag="herowars.ap_adjusted"):
    contestant: str
    delta: int
    reason: str


class Defeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A contestant at 0 AP or less and its outcome (table 5.3.3.1, by its final AP)."""

    contestant: str
    ap: int
    level: str  # Marginal, Minor, Major, Complete
    consequence: str  # Hurt, Impaired, Injured, Dying


class ContestDecided(_Msg, frozen=True, tag="herowars.contest_decided"):
    winner: str | None  # None: both fell together
    defeated: list[Defeat]
    benefit: str | None  # the winner's benefit: Fresh, Pumped, Invigorated, Heroic


class ContestResumed(_Msg, frozen=True, tag="herowars.contest_resumed"):
    """A GM adjustment brought every contestant back above 0 AP: the contest goes on where it stopped (the
    same round and turn; a new round if the round's exchanges were all done)."""


Event = (
    RoundStarted
    | OrderSet
    | ExchangeRolled
    | HeroPointSpent
    | HeroPointPassed
    | ExchangeTied
    | ExchangeApplied
    | ApAdjusted
    | ContestDecided
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
    edge: int | None
    controlled_by_you: bool
    out: bool


class ExchangeView(msgspec.Struct, frozen=True):
    number: int
    actor: str
    defender: str
    bid: int
    actor_face: int | None
    defender_face: int | None
    actor_level: str
    defender_level: str
    hero_points_spent: list[str]
    hero_points_pending: list[str]  # who may still spend one, shown only to the GM and its own player
    answers_pending: list[str] = []  # whose player must still let the result stand or spend a hero point


class HerowarsView(msgspec.Struct, frozen=True, tag_field="type", tag="herowars.view"):
    prize: str
    round: int
    phase: Phase
    order: list[str]
    next_actor: str | None
    contestants: list[ContestantView]
    intents: dict[str, Intent]  # revealed intents of this round
    exchange: ExchangeView | None
    last: ExchangeApplied | None
    outcome: ContestDecided | None
    cap_3x: bool
    chart: ApChart = msgspec.field(default_factory=ApChart)  # AP over the exchanges (the newest 200 points)
    last_roll: QuestRoll | None = None  # the dice of the newest exchange applied
