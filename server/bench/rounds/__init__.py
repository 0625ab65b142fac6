"""The rounds the table-night mix plays: one module per ruleset, each a setup and a player for every seat.

A round module builds the contest a room plays (``request``: a GM and four player seats, server dice) and
reads the GM's view to say what the table does next (``next_move``): whose seat sends which command, as the
view's ``waiting`` says who is awaited. Declarations are sealed by the players' own seats, rolls are made
by the seat whose roll it is, answers come from each answering player. A decided contest is rewound to its
start by the driver (``server.bench.mix``), so each contest plays full rounds for as long as a run lasts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.common import Seat
from protocol.events import Command, CreateContest

Json = dict[str, Any]
"""A view as the wire carries it (the GM's: it sees every seal, whose answer is awaited, every AP)."""

PLAYERS = ("p1", "p2", "p3", "p4")
NAMES = {"p1": "Ann", "p2": "Bo", "p3": "Cy", "p4": "Di"}


@dataclass(frozen=True)
class Move:
    """One command of the table: the seat that sends it, and whether it rolls (an exchange, a scored or
    Karbon round, a Contingency action: what the tables count as exchanges). ``awaited``: the view's
    ``waiting`` names that seat (false for a GM's step nobody waits for, e.g. ordering a round)."""

    seat: str
    command: Command
    rolls: bool = False
    awaited: bool = True


@dataclass(frozen=True)
class Round:
    """A ruleset as the mix plays it."""

    ruleset: str
    request: Callable[[str], CreateContest]  # contest id -> the contest to create
    next_move: Callable[[Json], Move]  # the GM's view (not decided) -> what the table does next
    peer: tuple[tuple[str, str], ...] = ()
    """The round as boardgame.io plays it (``peer_game.js``, *Rounds*): its moves in order, each a seat and a
    kind — ``seal`` (a sealed declaration), ``roll``, ``answer`` or ``step`` (any other command)."""
    origin: int = 0
    """Where a decided contest is rewound to: the version after the room's first ``origin`` commands (0: as
    created; 1 where the creation holds no step to rewind to, e.g. a scored sequence before its first round)."""


def exchange(actor: str, defender: str) -> tuple[tuple[str, str], ...]:
    """An exchange as boardgame.io plays it: the actor's roll, then both players' answers."""
    return ((actor, "roll"), (actor, "answer"), (defender, "answer"))


def seats(plays: dict[str, list[str]]) -> list[Seat]:
    """The GM's seat and four named player seats, each playing the contestants ``plays`` gives it."""
    return [Seat("gm", "gm")] + [Seat(p, "player", plays.get(p, []), name=NAMES[p]) for p in PLAYERS]


def seat_of(plays: dict[str, list[str]], contestant: str) -> str:
    """The seat controlling ``contestant``: its player's, else the GM's."""
    return next((seat for seat, names in plays.items() if contestant in names), "gm")


def undeclared(view: Json) -> list[str]:
    """Who the open declaration window still waits for, in the order it expects them."""
    seal = view["seal"]
    if seal is None:
        return []
    declared = {d["participant"] for d in seal["declared"]}
    return [p for p in seal["expected"] if p not in declared]


def awaits(view: Json, seat: str) -> bool:
    """Whether the view's ``waiting`` names ``seat`` among those whose move it is."""
    return any(seat in wait["seats"] for wait in view["waiting"])


def doing(view: Json) -> str:
    """What the contest waits for first, as every page reads it ("roll exchange 2")."""
    waiting = view["waiting"]
    return str(waiting[0]["doing"]) if waiting else ""


def decided(view: Json) -> bool:
    """A contest whose rules are decided (the GM would conclude it; the mix rewinds it instead)."""
    return bool(view["rules"].get("phase") == "decided")


def rounds() -> dict[str, Round]:
    """Every ruleset's round, in the order the tables list them."""
    from server.bench.rounds import contingency, extended, herowars, karbon, scored

    return {r.ruleset: r for r in (extended.ROUND, herowars.ROUND, scored.ROUND, karbon.ROUND, contingency.ROUND)}
