"""The state of a Hero Wars contest between two contestants."""

from __future__ import annotations

import msgspec

from protocol.common import HeroPointWindow, QuestRoll
from protocol.rulesets.herowars import ContestDecided, ExchangeApplied, Intent, Phase
from server.rules.questworlds.chart import Chart


class Fighter(msgspec.Struct, frozen=True, gc=False):
    """A contestant as the contest sees it now."""

    id: str
    name: str
    ability: str
    rating: str  # modifiers and augments included
    starting_ap: int
    ap: int
    ap_known: bool  # AP knowledge: public once it has changed in this contest
    hero_points: int
    edge: int
    player: bool  # controlled by a player seat, else run by the GM


class Rolled(msgspec.Struct, frozen=True, gc=False):
    """An exchange whose dice are down, waiting for hero points, application or the GM's word on a tie."""

    number: int
    actor: str
    defender: str
    bid: int
    actor_face: int | None
    defender_face: int | None
    actor_level: str
    defender_level: str
    both_masteries: bool
    eligible: list[str]  # who may still spend a hero point
    spent: list[str] = []
    passed: list[str] = []
    waiting: list[str] = []  # whose player must still answer: let it stand, or spend a hero point


class HerowarsState(msgspec.Struct, frozen=True, gc=False):
    prize: str
    cap_3x: bool
    players_type_faces: bool
    fighters: dict[str, Fighter]
    # the dice of the newest exchange applied (questworlds.last_roll); no default, so a snapshot stored before the
    # state kept it does not decode and is folded again from the log (a snapshot is a cache)
    last_roll: QuestRoll | None
    hero_point_window: HeroPointWindow = "always"
    round: int = 0
    phase: Phase = "declaring"
    order: list[str] = []
    turn: int = 0  # index in ``order`` of the next exchange
    intents: dict[str, Intent] = {}
    exchange: Rolled | None = None
    exchanges: int = 0
    last: ExchangeApplied | None = None
    outcome: ContestDecided | None = None
    chart: Chart = Chart()  # the AP chart's newest points (questworlds.chart)
    resume_phase: Phase | None = None  # the phase a decision interrupted, for a GM adjustment that undoes it

    def opponent(self, contestant: str) -> str:
        return next(f for f in self.fighters if f != contestant)

    @property
    def actor(self) -> str | None:
        """Whose exchange comes next this round."""
        if self.phase != "ready" or self.turn >= len(self.order):
            return None
        return self.order[self.turn]
