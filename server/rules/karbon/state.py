"""The state of a Karbon scene: its twenty dice, where each is, and the contest being played."""

from __future__ import annotations

import msgspec

from protocol.rulesets.karbon import (
    Aftermath,
    ContestConcluded,
    Draw,
    HandsAfter,
    Mark,
    Payout,
    Place,
    RoundRolled,
    Side,
)

SIDES: tuple[Side, Side] = ("agent", "narrator")


class Die(msgspec.Struct, frozen=True, gc=False):
    id: str
    sides: int
    place: Place


class Waiting(msgspec.Struct, frozen=True, gc=False):
    """A payout waiting for its choice: the player's choice first, then (hurt, plans) the narrator's option."""

    payout: Payout
    choice: str | None = None


class Running(msgspec.Struct, frozen=True, gc=False):
    """The contest being played: its stats, chips, victory track and where its round stands."""

    number: int
    goal: str
    ability: str
    level: int
    challenge: int
    consequence: int
    peril: int
    sudden_death: bool
    drawn: bool = False  # the hands have been drawn
    round: int = 0
    all_in: bool | None = None  # this round's revealed risk; None while the declaration is open
    rolled: bool = False  # this round's dice are down: the test is on
    chips: dict[str, int] = msgspec.field(default_factory=lambda: {"agent": 0, "narrator": 0})  # in hand
    stacks: dict[str, int] = msgspec.field(default_factory=lambda: {"agent": 0, "narrator": 0})
    track: list[Mark] = []
    stacking: list[Side] = []  # who may still stack in this test
    waiting: list[Waiting] = []  # payouts whose choices are still to be made, oldest first


class KarbonState(msgspec.Struct, frozen=True, gc=False):
    agent: str
    name: str
    full_fortune: int
    fortune: int
    draw: Draw
    hands_after: HandsAfter
    players_type_faces: bool
    dice: dict[str, Die]
    played: bool = False  # a player seat plays the agent
    injuries: list[str] = []
    conditions: list[str] = []
    aftermaths: list[Aftermath] = []
    contest: Running | None = None
    previous: Running | None = None  # the last concluded contest (a sudden death repeats its stats)
    contests: int = 0
    last_roll: RoundRolled | None = None
    last_outcome: ContestConcluded | None = None
    aftermath_due: bool = False  # a loss at zero Fortune: the player picks a Blackout or Madness

    def at(self, place: Place) -> list[Die]:
        """The dice in one place, in id order."""
        return sorted((d for d in self.dice.values() if d.place == place), key=lambda d: _order(d.id))

    def ids(self, place: Place) -> list[str]:
        return [d.id for d in self.at(place)]

    @property
    def drawing(self) -> bool:
        return self.contest is not None and not self.contest.drawn


def _order(die: str) -> tuple[str, int, int]:
    """``d6-2`` before ``d6-10`` before ``d8-1``; reserve dice (``r6-…``) after the pool's."""
    kind, _, number = die.partition("-")
    sides = kind[1:]
    return kind[:1], int(sides) if sides.isdigit() else 0, int(number) if number.isdigit() else 0
