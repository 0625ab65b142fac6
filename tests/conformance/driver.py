"""A pure table for any registered ruleset: commands through the engine, no store, clock or randomness."""

from __future__ import annotations

from typing import Any

from protocol.common import Actor
from protocol.events import Command, CreateContest, Envelope
from server.engine import handle
from server.engine.contest import Contest, fold
from server.engine.dice import Roller, seed_hash
from server.engine.ruleset import Context, Ruleset
from tests.conformance.kit import Table

SEED = bytes(range(100, 132))
SPECTATOR = Actor("onlooker", "spectator")


class Driver:
    """One contest played in memory. ``do`` stores a command's batch or raises Refused, changing nothing."""

    def __init__(self, rules: Ruleset[Any], request: CreateContest) -> None:
        self.rules = rules
        self.request = request
        self.salts = 0
        gm = next(s for s in request.seats if s.role == "gm")
        seed = seed_hash(SEED) if request.dice == "server" else None
        pending = handle.create(rules, "c", request, seed)
        self.log: list[Envelope] = handle.first_envelopes(rules, "c", pending, Actor(gm.id, "gm"), "create", "t0")
        self.contest: Contest[Any] = fold(rules, self.log)

    @property
    def actors(self) -> list[Actor]:
        """Every seat as the actor it plays, and a spectator."""
        return [Actor(s.id, s.role) for s in self.request.seats] + [SPECTATOR]

    def table(self) -> Table:
        return Table(self.contest.rules, self.contest.created.seats, self.request.dice, self.contest.version)

    def ctx(self, actor: Actor) -> Context:
        self.salts += 1
        key = self.contest.version + 1
        return Context(
            actor=actor,
            seats=self.contest.created.seats,
            now=f"t{key}",
            version=key,
            dice=Roller(self.request.dice, SEED if self.request.dice == "server" else None, key),
            salt=f"{self.salts:032x}",
        )

    def do(self, actor: Actor, command: Command) -> list[Envelope]:
        pending = handle.decide(self.rules, self.contest, command, self.ctx(actor))
        batch = handle.envelopes(
            self.rules,
            "c",
            self.contest.version,
            self.contest.head_hash,
            pending,
            actor,
            f"cmd-{self.contest.version}",
            f"t{self.contest.version}",
        )
        self.contest = fold(self.rules, batch, self.contest)
        self.log.extend(batch)
        return batch
