"""What each viewer may learn from an extended contest's events (its notices, the story so far, replays).

A contestant's rating and hero points are its controller's and the GM's (as in the view): a disengagement
rolled against the opponent's rating shows the others the dice and the result, not the rating; of the hero
points the GM grants, everyone else learns only that the GM granted some (no one, no number, no reason), which
the contest's version moving on would tell them anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.events import Revealed
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.state import ExtendedState


def redact(state: ExtendedState, event: x.Event | Revealed, viewer: Viewer) -> x.Event | Revealed | None:
    hides = _HIDES.get(type(event))
    return event if hides is None else hides(state, event, viewer)


def _granted(state: ExtendedState, event: x.HeroPointsGranted, viewer: Viewer) -> x.HeroPointsGranted:
    if event.contestant is None or _sees(viewer, event.contestant):
        return event
    return x.HeroPointsGranted(contestant=None, points=None)


def _disengaged(state: ExtendedState, event: x.DisengageRolled, viewer: Viewer) -> x.DisengageRolled:
    opponent = state.fighters.get(event.opponent)
    if opponent is None or event.roll.resistance != opponent.rating or _sees(viewer, opponent.id):
        return event
    return msgspec.structs.replace(event, roll=msgspec.structs.replace(event.roll, resistance=None))


# The events some viewers see less of, by their class (as ``evolve``'s ``BY_EVENT``); every other one is shown whole.
_HIDES: dict[type, Callable[[ExtendedState, Any, Viewer], x.Event | Revealed | None]] = {
    x.HeroPointsGranted: _granted,
    x.DisengageRolled: _disengaged,
}


def _sees(viewer: Viewer, contestant: str) -> bool:
    return viewer.omniscient or viewer.controls(contestant)
