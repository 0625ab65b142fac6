"""The state of an extended contest between two contestants."""

from __future__ import annotations

import msgspec

from protocol.rulesets.extended import ActionKind, BetterRoll, ContestDecided, ExchangeApplied, Intent, Phase


class Fighter(msgspec.Struct, frozen=True):
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


class Rolled(msgspec.Struct, frozen=True):
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
    resistance: str | None = None  # an unrelated action's simple contest is against this, not the defender


class ExtendedState(msgspec.Struct, frozen=True):
    prize: str
    better_roll: BetterRoll
    players_type_faces: bool
    fighters: dict[str, Fighter]
    round: int = 0
    phase: Phase = "declaring"
    order: list[str] = []
    turn: int = 0  # index in ``order`` of the next exchange
    intents: dict[str, Intent] = {}
    proposals: dict[str, int] = {}
    exchange: Rolled | None = None
    exchanges: int = 0
    last: ExchangeApplied | None = None
    outcome: ContestDecided | None = None
    parting_shot_taken: bool = False
    parting_shot: bool = False  # the exchange waiting to be rolled is the victor's parting shot

    def opponent(self, contestant: str) -> str:
        return next(f for f in self.fighters if f != contestant)

    @property
    def actor(self) -> str | None:
        """Whose exchange comes next this round."""
        if self.phase != "ready" or self.turn >= len(self.order):
            return None
        return self.order[self.turn]
