"""What a contest waits for, and from whom: the "whose move" line every page shows.

The ruleset says what its state waits for, by contestants (``Ruleset.waiting``); the engine adds the open
declaration window's participants who have not declared yet (never what anyone declared), turns contestants
into seats (the player seat controlling a contestant; the GM for one no player controls, and for the GM's own
steps) and names those seats as a person reads them. A concluded contest waits for nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from protocol.common import Seat
from protocol.views import WaitView
from server.engine.contest import Contest
from server.engine.names import THE_GM, Names, joined, seat_called, typed_name
from server.engine.ruleset import Ruleset, Viewer, Wait

SOMEONE = "someone"
"""Who a viewer reads for a wait whose seats are secret from it."""


def awaited(ruleset: Ruleset[Any], contest: Contest[Any]) -> list[Wait]:
    """What the contest waits for now: the open window's declarations still missing, then the ruleset's own."""
    if contest.concluded is not None:
        return []
    waits: list[Wait] = []
    window = ruleset.window(contest.rules)
    if window is not None:
        declared = {d.participant for d in contest.declared.values() if d.window == window.id}
        missing = tuple(p for p in window.expected if p not in declared)
        waits.append(Wait(window.doing, missing) if missing else Wait("close the declarations", gm=True))
    waits.extend(ruleset.waiting(contest.rules, contest.created.dice))
    return waits


class Seating:
    """The seats of a contest and the names a person reads for them, for the waits of one state."""

    def __init__(self, seats: Sequence[Seat], things: Callable[[], Names]) -> None:
        self.gms = [s.id for s in seats if s.role == "gm"]
        self.controller: dict[str, Seat] = {}
        for seat in seats:
            if seat.role == "player":
                for contestant in seat.contestants:
                    self.controller.setdefault(contestant, seat)
        self._things = things
        self._names: Names | None = None

    def name(self, seat: Seat) -> str:
        typed = typed_name(seat)
        if typed is not None:
            return typed  # named by the GM: the things' names are not needed
        if self._names is None:
            self._names = self._things()
        return seat_called(seat, self._names)

    def view(self, wait: Wait, viewer: Viewer) -> WaitView:
        """The wait as this viewer may read it (a hidden wait names only the viewer's own contestants to a
        player, and nobody to a spectator)."""
        contestants = wait.contestants
        if wait.hidden and not viewer.omniscient:
            contestants = tuple(c for c in contestants if viewer.controls(c))
            if not contestants:
                return WaitView(seats=[], who=SOMEONE, doing=wait.doing)
        players: dict[str, Seat] = {}
        gm = wait.gm or not contestants
        for contestant in contestants:
            seat = self.controller.get(contestant)
            if seat is None:
                gm = True
            else:
                players.setdefault(seat.id, seat)
        seats = [*players, *(self.gms if gm else [])]
        names = [self.name(s) for s in players.values()] + ([THE_GM] if gm else [])
        return WaitView(seats=seats, who=joined(names, "or" if wait.either else "and"), doing=wait.doing)


def waiting_views(ruleset: Ruleset[Any], contest: Contest[Any], viewers: Sequence[Viewer]) -> list[list[WaitView]]:
    """Each viewer's ``waiting``, in order: the waits worked out once, shown to each viewer as its sight may."""
    waits = awaited(ruleset, contest)
    if not waits:
        nothing: list[WaitView] = []
        return [nothing] * len(viewers)
    seating = Seating(contest.created.seats, lambda: ruleset.names(contest.rules))
    shown: dict[tuple[bool, frozenset[str]], list[WaitView]] = {}
    out: list[list[WaitView]] = []
    hidden = any(w.hidden for w in waits)
    for viewer in viewers:
        key = (viewer.omniscient, viewer.contestants) if hidden else (True, frozenset())
        views = shown.get(key)
        if views is None:
            views = shown[key] = [seating.view(w, viewer) for w in waits]
        out.append(views)
    return out
