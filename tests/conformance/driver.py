"""A pure table for any registered ruleset: commands through the engine's step, no store, clock or randomness."""

from __future__ import annotations

from typing import Any

from protocol.common import Actor
from protocol.events import Command, CreateContest, Envelope
from server.engine.contest import Contest
from server.engine.dice import seed_hash
from server.engine.ruleset import Ruleset
from server.engine.step import opening
from tests.conformance.kit import Table
from tests.engine.table import next_step

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
        opened = opening(rules, "c", request, Actor(gm.id, "gm"), "create", now="t0", seed_hash=seed)
        self.log: list[Envelope] = list(opened.envelopes)
        self.contest: Contest[Any] = opened.after

    @property
    def actors(self) -> list[Actor]:
        """Every seat as the actor it plays, and a spectator."""
        return [Actor(s.id, s.role) for s in self.request.seats] + [SPECTATOR]

    def table(self) -> Table:
        return Table(self.contest.rules, self.contest.created.seats, self.request.dice, self.contest.version)

    def do(self, actor: Actor, command: Command) -> list[Envelope]:
        self.salts += 1
        decided = next_step(
            self.rules, self.contest, actor, command, SEED if self.request.dice == "server" else None, self.salts
        )
        self.contest = decided.after
        batch = list(decided.envelopes)
        self.log.extend(batch)
        return batch
