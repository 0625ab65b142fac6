"""A pure table for contingency encounters: commands through the engine, no store, clock or randomness."""

from __future__ import annotations

import itertools
from typing import Any

from protocol.codec import encode
from protocol.common import Actor, DiceMode, Seat
from protocol.errors import Refused
from protocol.events import Command, CreateContest, Declare, Envelope
from protocol.rulesets import contingency as c
from server.engine.ruleset import Viewer
from server.engine.views import contest_view, viewer_for
from server.rulesets import ruleset
from tests.conformance.driver import Driver

RULES = ruleset("contingency")
GM = Actor("gm", "gm")
ANN = Actor("ann", "player")
BOB = Actor("bob", "player")
CAT = Actor("cat", "player")
SPECTATOR = Actor("spectator", "spectator")


def encounter(
    zones: list[c.Zone],
    characters: list[c.Character],
    connections: list[c.Connection] | None = None,
    players: dict[str, list[str]] | None = None,
    dice: DiceMode = "physical",
    **setup: Any,
) -> CreateContest:
    """An encounter with a GM seat and one player seat per entry of ``players`` (seat → characters)."""
    seats = [Seat("gm", "gm")] + [Seat(p, "player", cs) for p, cs in (players or {}).items()]
    return CreateContest(
        ruleset="contingency",
        title="An encounter",
        dice=dice,
        seats=seats,
        setup=c.ContingencySetup(zones=zones, characters=characters, connections=connections or [], **setup),
    )


def line(*names: str, **modifiers: int) -> tuple[list[c.Zone], list[c.Connection]]:
    """Zones in a row, each connected to the next; ``modifiers`` by zone id."""
    zones = [c.Zone(id=n, name=n.capitalize(), modifier=modifiers.get(n, 0)) for n in names]
    return zones, [c.Connection(a=a, b=b) for a, b in itertools.pairwise(names)]


class Table(Driver):
    def __init__(self, request: CreateContest) -> None:
        super().__init__(RULES, request)

    @property
    def state(self) -> Any:
        return self.contest.rules

    def refused(self, actor: Actor, command: Command) -> str:
        """The stable code of a refusal; fails when accepted or when the refusal changed anything."""
        before, length, snapshot = self.contest, len(self.log), encode(self.contest)
        try:
            self.do(actor, command)
        except Refused as exc:
            assert self.contest is before and len(self.log) == length and encode(self.contest) == snapshot
            return exc.code
        raise AssertionError(f"{command} was accepted")

    def events(self, batch: list[Envelope]) -> list[Any]:
        return [e.event for e in batch]

    def view(self, actor: Actor) -> Any:
        viewer: Viewer = viewer_for(actor, self.contest.created.seats)
        return contest_view(RULES, self.contest, viewer)

    def announce(self, intents: dict[str, tuple[Actor, list[str]]]) -> None:
        """Open intent (if the scene is set) and declare every character's actions."""
        if self.state.phase == "scene":
            self.do(GM, c.OpenIntent())
        for character, (actor, actions) in intents.items():
            self.do(actor, Declare(participant=character, payload=c.Intent(actions=actions)))
