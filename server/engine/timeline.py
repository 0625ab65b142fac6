"""The timeline: one human-readable line per event, for notices and replays.

Callers pass the event *as the viewer may see it* (``views.event_for``), so a sealed payload never reaches a
line written for someone else. Ruleset events and sealed payloads are described by their ruleset.
"""

from __future__ import annotations

from typing import Any

from protocol.common import AUDITOR, SPECTATOR, Actor
from protocol.events import (
    Concluded,
    ContestCreated,
    Declared,
    Event,
    Redone,
    Revealed,
    Rewound,
    SeatReissued,
    Undone,
)
from server.engine.names import Naming, called
from server.engine.ruleset import Ruleset

ENGINE_EVENTS: frozenset[type] = frozenset(
    {ContestCreated, Declared, Revealed, Undone, Rewound, Redone, Concluded, SeatReissued}
)
"""The events the engine describes itself (every other event belongs to the ruleset). An event's own class is
looked up here, never asked with ``isinstance``, as the engine's other sets of events and commands are: they are
final classes, and ``isinstance`` with a msgspec Struct class that does not match costs about a thousand
instructions (its metaclass's ``__instancecheck__`` is looked up, bound and called)."""

ENGINE_SHOWN: frozenset[type] = ENGINE_EVENTS - {Revealed}
"""The engine's events every viewer is shown as they are: all but the reveal, whose declarations the ruleset
redacts and folds like its own events."""


def describe(ruleset: Ruleset[Any], event: Event, actor: Actor, naming: Naming) -> str:
    """The line for one (already redacted) event caused by ``actor``, naming people and things by ``naming``."""
    who = naming.actor(actor)
    names = naming.things
    if type(event) not in ENGINE_EVENTS:
        return ruleset.describe(event, names)
    match event:
        case ContestCreated():
            dice = "server dice" if event.dice == "server" else "physical dice"
            title = f" “{event.title}”" if event.title else ""
            return f"{who} opened the {event.ruleset} contest{title} ({dice})"
        case Declared():
            if event.payload is None:
                return f"{called(names, event.participant)} has declared (sealed)"
            return f"{called(names, event.participant)} declared, sealed: {ruleset.describe(event.payload, names)}"
        case Revealed():
            entries = (f"{called(names, e.participant)}: {ruleset.describe(e.payload, names)}" for e in event.entries)
            shown = "; ".join(entries) or "nothing declared"
            closed = " (closed by the GM)" if event.closed_by_gm else ""
            return f"declarations revealed{closed}: {shown}"
        case Undone():
            return f"{who} undid back to version {event.to_version}"
        case Rewound():
            return f"{who} rewound to version {event.to_version}"
        case Redone():
            return f"{who} redid {len(event.restored)} event(s)"
        case SeatReissued():
            if event.seat == AUDITOR:
                again = "" if event.generation == 1 else " (the older auditor link no longer works)"
                return f"{who} issued an auditor link{again}"
            whose = "the spectators" if event.seat == SPECTATOR else naming.seats.get(event.seat, event.seat)
            return f"{who} issued a new link for {whose}: the older one no longer works"
        case Concluded():
            seed = "; the dice seed is revealed" if event.seed else ""
            return f"{who} concluded the contest{seed}"
        case _:  # described by the ruleset, above
            raise AssertionError(f"{type(event).__name__} is not an event of the engine")
