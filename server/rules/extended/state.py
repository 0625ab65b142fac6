"""The state of an extended contest: two contestants, or a group contest of several sides."""

from __future__ import annotations

import msgspec

from protocol.common import HeroPointWindow, QuestRoll
from protocol.rulesets.extended import (
    ActionKind,
    BetterRoll,
    ContestDecided,
    Daring,
    ExchangeApplied,
    Intent,
    OrderMode,
    Phase,
)
from server.rules.questworlds.chart import Chart


class Fighter(msgspec.Struct, frozen=True, gc=False):
    """A contestant as the contest sees it now."""

    id: str
    name: str
    ability: str
    rating: str  # the rating the contestant acts with, modifiers included
    starting_ap: int
    ap: int
    ap_known: bool  # AP knowledge: public once it has changed in this contest
    hero_points: int
    edge: int
    player: bool  # controlled by a player seat (a PC), else run by the GM
    side: str = ""
    followers: list[str] = []  # followers whose AP is already in this contestant's total
    withdrawn: bool = False  # disengaged; it may rejoin with the AP it left with
    final_action_used: bool = False
    last_opponent: str | None = None  # the last opponent it engaged in an exchange

    @property
    def in_contest(self) -> bool:
        """Neither defeated (0 AP or less) nor withdrawn."""
        return self.ap > 0 and not self.withdrawn


class Rolled(msgspec.Struct, frozen=True, gc=False):
    """An exchange whose dice are down, waiting for hero points and application."""

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
    actor_value: int
    defender_value: int
    eligible: list[str]  # who may still spend a hero point
    spent: list[str] = []
    passed: list[str] = []
    waiting: list[str] = []  # whose player must still answer: let it stand, or spend a hero point
    resistance: str | None = None  # an unrelated action's simple contest is against this, not the defender


class ExtendedState(msgspec.Struct, frozen=True, gc=False):
    prize: str
    better_roll: BetterRoll
    players_type_faces: bool
    fighters: dict[str, Fighter]
    # the dice of the newest roll applied (questworlds.last_roll); no default, so a snapshot stored before the
    # state kept it does not decode and is folded again from the log (a snapshot is a cache)
    last_roll: QuestRoll | None
    hero_point_window: HeroPointWindow = "always"
    round: int = 0
    phase: Phase = "declaring"
    order: list[str] = []  # this round's order, delays included
    base_order: list[str] = []  # the order as set, before delays (the next round starts from it)
    acted: list[str] = []  # who has acted this round
    delayed: list[str] = []
    current: str | None = None  # a contestant part-way through its turn (more targets to engage)
    targets_left: list[str] = []
    order_mode: OrderMode | None = None
    ordered: bool = False  # the GM has set this round's order (by a mode or by hand)
    daring: dict[str, Daring] = {}  # the GM's ranking of this round's actions, where it differs
    changes_allowed: list[str] = []
    intents: dict[str, Intent] = {}
    proposals: dict[str, int] = {}
    exchange: Rolled | None = None
    exchanges: int = 0
    last: ExchangeApplied | None = None
    outcome: ContestDecided | None = None
    chart: Chart = Chart()  # the AP chart's newest points (questworlds.chart)
    resume_phase: Phase | None = None  # the phase a decision interrupted, for a GM adjustment that undoes it
    open_shots: dict[str, str] = {}  # victor -> the opponent it just defeated: a parting shot may follow
    shooter: str | None = None  # the parting shot waiting to be rolled: its victor, target and intent
    shot_target: str | None = None
    shot_intent: Intent | None = None

    @property
    def group(self) -> bool:
        """Three or more contestants: a group extended contest."""
        return len(self.fighters) > 2

    @property
    def parting_shot(self) -> bool:
        return self.shooter is not None

    def opponent(self, contestant: str) -> str:
        """In a duel, the other contestant."""
        return next(f for f in self.fighters if f != contestant)

    def opponents(self, contestant: str) -> list[str]:
        side = self.fighters[contestant].side
        return [f.id for f in self.fighters.values() if f.side != side]

    def intent(self, contestant: str) -> Intent:
        return self.intents.get(contestant, Intent())

    def daring_of(self, contestant: str) -> Daring:
        return self.daring.get(contestant, self.intent(contestant).daring)

    def targets(self, contestant: str) -> list[str]:
        """Whom the contestant's turn engages, in order (what is left of it once the turn has begun)."""
        if self.current == contestant:
            return list(self.targets_left)
        declared = self.intent(contestant).targets or []
        if declared:
            return list(declared)
        return [] if self.group else [self.opponent(contestant)]

    def waiting(self, contestant: str) -> bool:
        """Still to act this round: in the order, in the contest, and not yet begun."""
        fighter = self.fighters.get(contestant)
        return (
            fighter is not None
            and fighter.in_contest
            and contestant in self.order
            and contestant not in self.acted
            and contestant != self.current
        )

    @property
    def round_begun(self) -> bool:
        return bool(self.acted) or self.current is not None or self.exchange is not None

    @property
    def actor(self) -> str | None:
        """Whose exchange comes next this round."""
        if self.phase != "ready" or self.exchange is not None:
            return None
        if self.shooter is not None:
            return self.shooter
        if self.current is not None:
            return self.current
        return next((c for c in self.order if self.waiting(c)), None)
