"""The state of a Contingency encounter: the map as it is now, the characters, and the current round."""

from __future__ import annotations

import msgspec

from protocol.rulesets.contingency import (
    ActionDef,
    ActionResolved,
    ActionStatus,
    ActionType,
    Character,
    Connection,
    IntentMode,
    OmenRule,
    Phase,
    Thing,
    Zone,
)
from server.rules.contingency import zones as z


class Fighter(msgspec.Struct, frozen=True, gc=False):
    """A character and what it has done this round."""

    id: str
    name: str
    zone: str
    dice: list[int]
    player: bool  # controlled by a player seat, else run by the GM
    deck: list[str] = []  # its action cards; empty: every action of the table
    skills: dict[str, list[int]] = {}  # dice sizes by "attribute/skill" (see ``skill_key``)
    taken: int = 0  # actions performed this round (instant actions and steps do not count)
    performed: list[str] = []  # names of the actions performed this round
    stepped: bool = False
    moved: bool = False  # performed a movement action this round (forced-movement zones sweep the others)
    mp: int | None = None  # movement points left from this round's Reposition
    omens: int = 0  # omens of the last roll not yet taken
    omens_taken: list[str] = []  # omens already taken in the current action (with its instant actions)
    granted: list[str] = []  # actions an omen lets it perform as Instant actions now
    last: str | None = None  # its last resolved action this round (what an Instant action is part of)


def skill_key(attribute: str, skill: str) -> str:
    return f"{attribute}/{skill}"


def enlist(character: Character, player: bool) -> Fighter:
    """A character of the setup (or added later) as it enters the encounter."""
    return Fighter(
        id=character.id,
        name=character.name,
        zone=character.zone,
        dice=list(character.dice),
        player=player,
        deck=list(character.actions),
        skills={skill_key(s.attribute, s.skill): list(s.dice) for s in character.skills},
    )


class Planned(msgspec.Struct, frozen=True, gc=False):
    """An action of this round: announced (and possibly changed), triggered or instant."""

    id: str
    character: str
    name: str
    type: ActionType
    seq: int  # announcement order across the table
    kind: str = "announced"  # "announced", "triggered", "instant"
    status: ActionStatus = "planned"
    target: str | None = None
    difficulty: int | None = None
    change_penalty: int = 0
    asked: str | None = None  # a change asked for, waiting for the GM
    result: int | None = None
    success: bool | None = None


class Rolling(msgspec.Struct, frozen=True, gc=False):
    """Dice down, waiting for the player to choose how to take the penalty."""

    action: str
    character: str
    faces: list[int]
    sides: list[int]
    penalty: int


class ContingencyState(msgspec.Struct, frozen=True, gc=False):
    mode: IntentMode
    omen_rule: OmenRule
    omen_at: int
    players_type_faces: bool
    catalogue: dict[str, ActionDef]
    zones: dict[str, Zone]
    connections: list[Connection]
    fighters: dict[str, Fighter]
    things: dict[str, Thing]
    # the sizes of ``last``'s dice, in its order; no default, so a snapshot stored before the state kept them does
    # not decode and is folded again from the log (a snapshot is a cache)
    last_sides: list[int]
    engagements: list[tuple[str, str]] = []  # sorted pairs
    round: int = 0
    phase: Phase = "scene"
    scene: str = ""
    foreshadow: str = ""
    actions: dict[str, Planned] = {}  # this round's, by id
    order: list[str] = []  # the GM's order for actions still to resolve (else the rules' order)
    rolling: Rolling | None = None
    last: ActionResolved | None = None
    environmental: list[str] = []

    def engaged(self, a: str, b: str) -> bool:
        return z.pair(a, b) in self.engagements

    def engaged_with(self, character: str) -> list[str]:
        return [b if a == character else a for a, b in self.engagements if character in (a, b)]

    def deck(self, character: str) -> list[str]:
        fighter = self.fighters.get(character)
        if fighter is None or not fighter.deck:
            return list(self.catalogue)
        return [name for name in fighter.deck if name in self.catalogue]

    def ids(self) -> set[str]:
        """Every id on the map: zones, characters and things share one name space (targets)."""
        return set(self.zones) | set(self.fighters) | set(self.things)

    def zone_of(self, target: str) -> str | None:
        if target in self.zones:
            return target
        if target in self.fighters:
            return self.fighters[target].zone
        if target in self.things:
            return self.things[target].zone
        return None
