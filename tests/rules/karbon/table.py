"""A pure karbon table: plays commands through the engine with no store, no clock and no randomness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.common import Seat
from protocol.events import CreateContest, Declare, Envelope
from protocol.rulesets import karbon as k
from server.rules.karbon.state import KarbonState, Running
from tests.engine import table as engine_table
from tests.engine.table import ANN, GM, SPECTATOR

__all__ = ["ANN", "GM", "SPECTATOR", "Table", "contest", "scene"]


def scene(dice: str = "physical", **settings: Any) -> CreateContest:
    """A scene around Vera (Ann's agent)."""
    return CreateContest(
        ruleset="karbon",
        title="The docks at night",
        dice=dice,  # type: ignore[arg-type]
        contest="docks",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["vera"])],
        setup=k.KarbonSetup(agent="vera", name="Vera", **settings),
    )


def contest(level: int = 3, challenge: int = 2, consequence: int = 2, peril: int = 0, **extra: Any) -> k.StartContest:
    return k.StartContest(
        goal="slip past the guards",
        ability="Stealth",
        level=level,
        challenge=challenge,
        consequence=consequence,
        peril=peril,
        **extra,
    )


@dataclass
class Table(engine_table.Table):
    """The engine's pure table, set for a karbon scene, with the karbon table's words."""

    request: CreateContest = field(default_factory=scene)

    def events(self, batch: list[Envelope]) -> list[Any]:
        return [e.event for e in batch]

    @property
    def rules(self) -> KarbonState:  # type: ignore[override]
        state = self.contest.rules
        assert isinstance(state, KarbonState)
        return state

    @property
    def running(self) -> Running:
        assert self.rules.contest is not None
        return self.rules.contest

    def hand(self, side: str) -> list[str]:
        return self.rules.ids(side)  # type: ignore[arg-type]

    def chips(self, side: str) -> tuple[int, int]:
        """(in hand, on the stack)."""
        return self.running.chips[side], self.running.stacks[side]

    def risk(self, all_in: bool = False) -> None:
        self.do(ANN, Declare(participant="vera", payload=k.Risk(all_in=all_in)))

    def start(self, agent: list[str], narrator: list[str], **stats: Any) -> None:
        """A contest whose hands are the named dice (physical dice)."""
        self.do(GM, contest(level=len(agent), challenge=len(narrator), **stats))
        self.do(GM, k.DrawHands(agent=agent, narrator=narrator))

    def roll(
        self, faces: dict[str, int], risk: list[int] | None = None, peril: list[int] | None = None, **extra: Any
    ) -> list[Any]:
        return self.events(self.do(GM, k.Roll(faces=faces, risk=risk, peril=peril, **extra)))
