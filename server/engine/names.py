"""The names people read for the ids in a contest: seats by the name the GM typed, and the ruleset's own things
(contestants, zones, characters) by the names their setup gave them.

Lines written for people (notices, the timeline, replays) use these; the ids stay in the data.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from protocol.common import Actor, Seat

Names = Mapping[str, str]
"""A ruleset's ids -> the names shown for them (an id missing from it is shown as itself)."""

NO_NAMES: Names = {}


def called(names: Names, ident: str | None) -> str:
    """The name shown for ``ident`` (the id itself when it has none)."""
    if ident is None:
        return "nobody"
    return names.get(ident, ident)


def listed(names: Names, idents: Iterable[str]) -> str:
    """Names joined with commas, as in "Aria, Grisk"."""
    return ", ".join(called(names, i) for i in idents)


def joined(names: Sequence[str], word: str = "and") -> str:
    """As a sentence lists them: "Ann", "Ann and Bo", "Ann, Bo and Cy" (or ``word`` "or")."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {word} {names[-1]}"


THE_GM = "the GM"


def typed_name(seat: Seat) -> str | None:
    """The name the GM typed for the seat, if it typed one."""
    return seat.name.strip() if isinstance(seat.name, str) and seat.name.strip() else None


def seat_called(seat: Seat, things: Names) -> str:
    """A seat as a person reads it: the name the GM typed; else a GM's seat is "the GM", and a player's is named
    by whom it plays ("Aria's player"), as on every page (presence, whose move, talk, the log)."""
    typed = typed_name(seat)
    if typed is not None:
        return typed
    if seat.role == "gm":
        return THE_GM
    played = [called(things, c) for c in seat.contestants]
    return f"{joined(played)}'s player" if played else seat.id


@lru_cache(maxsize=256)
def _pattern(idents: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(idents, key=len, reverse=True)  # "orc-2" before "orc"
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in ordered) + r")(?![\w-])")


def named_text(text: str, names: Names) -> str:
    """A text stored with ids in it (written by an older server, or by the rules before names existed), with
    each whole id replaced by its name. Only for stored texts the rules wrote: never for words a person typed."""
    idents = tuple(i for i, n in names.items() if i != n and i)
    if not idents or not text:
        return text
    return _pattern(idents).sub(lambda m: names[m.group(1)], text)


@dataclass(frozen=True)
class Naming:
    """Everything a line needs to name who did what: the seats' names and the ruleset's names."""

    seats: Names
    things: Names

    def actor(self, actor: Actor) -> str:
        """The GM as "the GM", a player by its seat's name, anyone else by its principal."""
        if actor.role == "gm":
            return THE_GM
        return self.seats.get(actor.principal, actor.principal)


def seat_names(seats: Sequence[Seat], things: Names = NO_NAMES) -> dict[str, str]:
    """Player seat id -> the name a person reads for it (``seat_called``)."""
    return {s.id: seat_called(s, things) for s in seats if s.role == "player"}


def naming(ruleset: Any, seats: Sequence[Seat], *states: Any) -> Naming:
    """The naming of a contest whose rules' states (oldest first) are ``states``: a later state's name wins,
    and a thing gone from a later state keeps the name an earlier one gave it."""
    things: dict[str, str] = {}
    for state in states:
        if state is not None:
            things.update(ruleset.names(state))
    return Naming(seats=seat_names(seats, things), things=things)
