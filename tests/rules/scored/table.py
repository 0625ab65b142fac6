"""A scored sequence played through the engine with no store, clock or randomness (physical dice).

The heroes: Aria (Ann's PC, 15) with three followers — Brin the secondary contestant, Cato who fights as a
contestant, Dina the supporter — and Bors (Bob's PC, 14). The opposition, run by the GM: the Ogre (13) and
its follower Gob, a contestant (8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.common import Actor, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import scored as s
from server.rulesets import ruleset
from tests.engine.table import ANN, BOB, GM
from tests.engine.table import Table as EngineTable

RULES = ruleset("scored")
__all__ = ["ANN", "BOB", "GM", "RULES", "Table", "heroes"]


def heroes(
    bors_joins_later: bool = False, story_points: int = 0, players_type_faces: bool = False, **ratings: str
) -> CreateContest:
    def rating(who: str, default: str) -> str:
        return ratings.get(who, default)

    contestants = [
        s.Contestant(
            id="aria",
            name="Aria",
            side="heroes",
            ability="Sword",
            rating=rating("aria", "15"),
            story_points=story_points,
        ),
        s.Contestant(
            id="brin", name="Brin", side="heroes", rating=rating("brin", "12"), follower_of="aria", role="secondary"
        ),
        s.Contestant(
            id="cato", name="Cato", side="heroes", rating=rating("cato", "10"), follower_of="aria", role="contestant"
        ),
        s.Contestant(
            id="dina", name="Dina", side="heroes", rating=rating("dina", "8"), follower_of="aria", role="supporter"
        ),
        s.Contestant(
            id="bors",
            name="Bors",
            side="heroes",
            ability="Spear",
            rating=rating("bors", "14"),
            joins_later=bors_joins_later,
        ),
        s.Contestant(id="ogre", name="Ogre", side="opposition", ability="Club", rating=rating("ogre", "13")),
        s.Contestant(
            id="gob", name="Gob", side="opposition", rating=rating("gob", "8"), follower_of="ogre", role="contestant"
        ),
    ]
    return CreateContest(
        ruleset="scored",
        title="The ogre's bridge",
        dice="physical",
        contest="bridge",
        seats=[
            Seat("gm", "gm"),
            Seat("ann", "player", ["aria", "brin", "cato", "dina"]),
            Seat("bob", "player", ["bors"]),
        ],
        setup=s.ScoredSetup(prize="the bridge", contestants=contestants, players_type_faces=players_type_faces),
    )


@dataclass
class Table(EngineTable):
    request: CreateContest = field(default_factory=heroes)

    def rp(self, contestant: str) -> int:
        return int(self.rules.rp(contestant))

    def out(self, contestant: str) -> str | None:
        return self.rules.members[contestant].out  # type: ignore[no-any-return]

    def events(self, kind: type[Any]) -> list[Any]:
        return [e.event for e in self.log if isinstance(e.event, kind)]

    def resolved(self) -> s.ContestResolved:
        return self.events(s.ContestResolved)[-1]  # type: ignore[no-any-return]

    def round(
        self,
        initiative: str,
        responder: str,
        faces: list[int],
        tactics: tuple[str, str] = ("none", "none"),
    ) -> s.ContestResolved | None:
        """Start a round, declare both tactics sealed, roll the faces (initiative's first); the resolution,
        or None while a player may still spend story points."""
        self.do(GM, s.StartRound(initiative=initiative, responder=responder))
        for contestant, tactic in zip((initiative, responder), tactics, strict=True):
            self.do(self.controller(contestant), Declare(participant=contestant, payload=s.Tactic(tactic=tactic)))  # type: ignore[arg-type]
        self.do(GM, s.Roll(faces=faces))
        self.stand()  # the players who could not spend a story point let the result stand
        return None if self.rules.pending is not None else self.resolved()

    def controller(self, contestant: str) -> Actor:
        for seat in self.contest.created.seats:
            if seat.role == "player" and contestant in seat.contestants:
                return Actor(seat.id, "player")
        return GM

    def adjust(self, contestant: str, delta: int) -> None:
        self.do(GM, s.Adjust(contestant=contestant, delta=delta, reason="set up the test"))
