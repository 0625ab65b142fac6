"""A group contest at the pure test table: Ann's Aria and Bob's Bran against three raiders the GM runs."""

from __future__ import annotations

from typing import Any

from protocol.common import Actor, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import extended as x
from tests.engine.table import ANN, BOB, GM, Table

HEROES = ["aria", "bran"]
RAIDERS = ["orc", "wolf", "shaman"]
PLAYER = {"aria": ANN, "bran": BOB}


def raid(
    ratings: dict[str, str] | None = None, hero_points: dict[str, int] | None = None, **setup: Any
) -> CreateContest:
    """2 vs 3, physical dice. Starting AP: Aria 15, Bran 12, orc 12, wolf 10, shaman 8."""
    rating = {"aria": "15", "bran": "12", "orc": "12", "wolf": "10", "shaman": "8"} | (ratings or {})
    points = hero_points or {}
    contestants = [
        x.Contestant(
            id=c,
            name=c.capitalize(),
            ability="Fight",
            rating=rating[c],
            side="heroes" if c in HEROES else "raiders",
            hero_points=points.get(c, 0),
        )
        for c in [*HEROES, *RAIDERS]
    ]
    return CreateContest(
        ruleset="extended",
        title="Raid on the mill",
        dice="physical",
        contest="raid",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["bran"])],
        setup=x.ExtendedSetup(prize="the mill", contestants=contestants, **setup),
    )


def actor_for(contestant: str) -> Actor:
    return PLAYER.get(contestant, GM)


def declare(table: Table, intents: dict[str, x.Intent]) -> None:
    """Every contestant still in declares (sealed); the last declaration reveals them all."""
    for contestant, intent in intents.items():
        table.do(actor_for(contestant), Declare(participant=contestant, payload=intent))


def attack(target: str, bid: int = 3, daring: x.Daring = "bold", **more: Any) -> x.Intent:
    return x.Intent(action=f"attack {target}", bid=bid, daring=daring, targets=[target], **more)
