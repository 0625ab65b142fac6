"""A pure test table: plays commands through the engine's step with no store, no clock and no randomness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.common import Actor, Seat
from protocol.errors import Refused
from protocol.events import Command, CreateContest, Envelope
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import scored as s
from server.engine.contest import Contest
from server.engine.dice import seed_hash
from server.engine.ruleset import Ruleset
from server.engine.step import Decided, opening, step
from server.rulesets import ruleset

GM = Actor("gm", "gm")
ANN = Actor("ann", "player")
BOB = Actor("bob", "player")
SPECTATOR = Actor("spectator", "spectator")
SEED = bytes(range(32))
RULES = ruleset("extended")


def duel(
    dice: str = "physical",
    aria: str = "15",
    orc: str = "12",
    hero_points: int = 1,
    pvp: bool = False,
    **extra: Any,
) -> CreateContest:
    """Aria (Ann's PC) against an orc the GM runs, or against Bob's PC when ``pvp``."""
    seats = [Seat("gm", "gm"), Seat("ann", "player", ["aria"])]
    if pvp:
        seats.append(Seat("bob", "player", ["orc"]))
    return CreateContest(
        ruleset="extended",
        title="Duel at the bridge",
        dice=dice,  # type: ignore[arg-type]
        contest="duel",
        seats=seats,
        setup=x.ExtendedSetup(
            prize="the bridge",
            contestants=[
                x.Contestant(id="aria", name="Aria", ability="Sword", rating=aria, hero_points=hero_points),
                x.Contestant(id="orc", name="Orc", ability="Axe", rating=orc, hero_points=hero_points if pvp else 0),
            ],
            **extra,
        ),
    )


def next_step(
    ruleset: Ruleset[Any], contest: Contest[Any], actor: Actor, command: Command, seed: bytes | None, salt: int
) -> Decided[Any]:
    """``command`` through the engine's step as the contest's next command id (``cmd-<version>``, stamped
    ``t<version>``, the ``salt``-th salt): the batch it decides, or Refused. A new command id on a contest that holds
    its history is never a repeat, a stale link or short of history."""
    version = contest.version
    decided = step(
        ruleset, contest, actor, f"cmd-{version}", command, now=f"t{version}", seed=seed, salt=f"{salt:032x}"
    )
    assert isinstance(decided, Decided), decided
    return decided


@dataclass
class Table:
    request: CreateContest = field(default_factory=duel)
    log: list[Envelope] = field(default_factory=list)
    salts: int = 0

    def __post_init__(self) -> None:
        # the request names the ruleset and the contest id
        self.ruleset = ruleset(self.request.ruleset)
        self.id = self.request.contest or "duel"
        seed = seed_hash(SEED) if self.request.dice == "server" else None
        opened = opening(self.ruleset, self.id, self.request, GM, "create", now="t0", seed_hash=seed)
        self.log = list(opened.envelopes)
        self.contest: Contest[Any] = opened.after

    def do(self, actor: Actor, command: Command) -> list[Envelope]:
        """Execute or raise Refused; a refusal leaves the table unchanged."""
        self.salts += 1
        decided = next_step(
            self.ruleset, self.contest, actor, command, SEED if self.request.dice == "server" else None, self.salts
        )
        self.contest = decided.after
        batch = list(decided.envelopes)
        self.log.extend(batch)
        return batch

    def refused(self, actor: Actor, command: Command) -> str:
        """The stable code of a refusal (fails the test when the command is accepted or the refusal changed
        anything)."""
        before, length = self.contest, len(self.log)
        try:
            self.do(actor, command)
        except Refused as exc:
            assert self.contest is before and len(self.log) == length
            return exc.code
        raise AssertionError(f"{command} was accepted")

    def stand(self) -> None:
        """After a roll: each PC's player who could change nothing (a hero point that would not matter, or
        no hero or story point at all) answers "let it stand", as the player page offers; a PC who could
        still spend one is left to decide."""
        answer: dict[str, Any] = {
            "extended": x.PassHeroPoint,
            "herowars": h.PassHeroPoint,
            "scored": s.KeepStoryPoints,
        }
        while (waiting := self._idle()) is not None and waiting:
            seat = next(s for s in self.contest.created.seats if s.role == "player" and waiting[0] in s.contestants)
            self.do(Actor(seat.id, "player"), answer[self.request.ruleset](contestant=waiting[0]))

    def _idle(self) -> list[str] | None:
        """Whose answer the rolled exchange (or simple contest) waits for, though they may spend nothing."""
        step = getattr(self.rules, "exchange", None) or getattr(self.rules, "pending", None)
        if step is None:
            return None
        may_spend = step.may_spend if hasattr(step, "may_spend") else step.eligible
        return [c for c in step.waiting if c not in may_spend]

    @property
    def rules(self) -> Any:
        return self.contest.rules

    def ap(self, contestant: str) -> int:
        return int(self.rules.fighters[contestant].ap)

    def declare(self, aria: x.Intent | None = None, orc: x.Intent | None = None, orc_actor: Actor = GM) -> None:
        from protocol.events import Declare

        self.do(ANN, Declare(participant="aria", payload=aria or x.Intent()))
        self.do(orc_actor, Declare(participant="orc", payload=orc or x.Intent()))
