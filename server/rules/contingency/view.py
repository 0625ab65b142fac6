"""What each viewer may see of an encounter, and how events are shown to those who may not see a secret.

In face-down mode an announced action shows only its type to everyone but its player and the GM until
it resolves (its ``ActionRolled`` turns the card over); so does the reveal, and so does an omen's grant (the
action it lets the character perform as an Instant action is named to others only when it is performed). A
change asked for is its player's and the GM's in either mode (the GM may refuse it, and the card asked for is
never played). A skipped action is never turned over: its name stays hidden in views, in its
``ActionSkipped`` and in the notice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.events import Revealed, RevealEntry
from protocol.rulesets import contingency as c
from server.engine.ruleset import Viewer
from server.engine.view_members import Own, ViewMembers
from server.rules.contingency import order as o
from server.rules.contingency.state import ContingencyState, Fighter, Planned


def _zones(state: ContingencyState) -> list[c.ZoneView]:
    fighters, things = state.fighters, state.things
    return [
        c.ZoneView(
            id=zone.id,
            name=zone.name,
            traits=list(zone.traits),
            modifier=zone.modifier,
            forced_to=zone.forced_to,
            characters=[k for k, f in fighters.items() if f.zone == zone.id],
            things=[k for k, t in things.items() if t.zone == zone.id],
        )
        for zone in state.zones.values()
    ]


def _next_action(state: ContingencyState) -> str | None:
    nxt = o.next_action(state)
    return nxt.id if nxt is not None else None


def _rolling(state: ContingencyState) -> c.RollView | None:
    rolling = state.rolling
    if rolling is None:
        return None
    return c.RollView(
        action=rolling.action,
        character=rolling.character,
        faces=list(rolling.faces),
        sides=list(rolling.sides),
        penalty=rolling.penalty,
    )


def _characters(state: ContingencyState) -> Own:
    engaged = o.partners(state)
    fighters = list(state.fighters.values())
    return lambda viewer: [_character(state, f, engaged[f.id], viewer) for f in fighters]


def _actions(state: ContingencyState) -> Own:
    """The round's actions: those done (in the order they were), then those to come (in the order they will be),
    then those the queue leaves out."""
    upcoming = o.queue(state)
    queued = {p.id for p in upcoming}
    done = sorted((p for p in state.actions.values() if p.status != "planned"), key=lambda p: p.seq)
    later = [p for p in state.actions.values() if p.status == "planned" and p.id not in queued]
    played = [*done, *upcoming, *later]
    return lambda viewer: [_action(state, p, viewer) for p in played]


QUEUE = ("actions", "fighters", "connections", "engagements", "zones", "things", "order")  # what ``o.queue`` reads

MEMBERS: ViewMembers[ContingencyState, c.ContingencyView] = ViewMembers(
    state_type=ContingencyState,
    view_type=c.ContingencyView,
    shared={
        "round": lambda state: state.round,
        "phase": lambda state: state.phase,
        "intent_mode": lambda state: state.mode,
        "scene": lambda state: state.scene,
        "foreshadow": lambda state: state.foreshadow,
        "zones": _zones,
        "connections": lambda state: list(state.connections),
        "things": lambda state: list(state.things.values()),
        "ranges": o.every_range,
        "next_action": _next_action,
        "rolling": _rolling,
        "last": lambda state: state.last,
        "last_sides": lambda state: list(state.last_sides),
        "environmental": lambda state: list(state.environmental),
    },
    own={
        "characters": _characters,
        "actions": _actions,
        "catalogue": lambda state: lambda viewer: _cards(state, viewer),
    },
    reads={
        "round": ("round",),
        "phase": ("phase",),
        "intent_mode": ("mode",),
        "scene": ("scene",),
        "foreshadow": ("foreshadow",),
        "zones": ("zones", "fighters", "things"),
        "connections": ("connections",),
        "things": ("things",),
        "ranges": ("connections", "engagements", "fighters"),
        "next_action": ("phase", *QUEUE),
        "rolling": ("rolling",),
        "last": ("last",),
        "last_sides": ("last_sides",),
        "environmental": ("environmental",),
        "characters": ("fighters", "engagements", "mode"),
        "actions": ("mode", *QUEUE),
        "catalogue": ("catalogue", "fighters"),
    },
)
"""The view, member by member: the map, the order of play and the ranges, which every sight shares, are worked
out once per state, and only the members that read what an event changed are built again."""


def _character(state: ContingencyState, f: Fighter, engaged: list[str], viewer: Viewer) -> c.CharacterView:
    return c.CharacterView(
        id=f.id,
        name=f.name,
        zone=f.zone,
        engaged_with=engaged,
        controlled_by_you=viewer.controls(f.id) or (viewer.role == "gm" and not f.player),
        actions_taken=f.taken,
        stepped=f.stepped,
        movement_points=f.mp,
        omens=f.omens,
        granted=list(f.granted) if sees_intent(state, f.id, viewer) else [],
        dice=list(f.dice),
        skills=sorted(f.skills),
        skill_dice={k: list(v) for k, v in sorted(f.skills.items())},
    )


def _cards(state: ContingencyState, viewer: Viewer) -> list[c.ActionDef]:
    """The action cards of the characters the viewer plays: a name in nobody else's hand never reaches them."""
    if viewer.omniscient:
        return list(state.catalogue.values())
    names = {name for k in state.fighters if viewer.controls(k) for name in state.deck(k)}
    return [a for a in state.catalogue.values() if a.name in names]


def sees_intent(state: ContingencyState, character: str, viewer: Viewer) -> bool:
    """Whether the viewer may see the names of a character's face-down actions."""
    return state.mode == "public" or viewer.omniscient or viewer.controls(character)


TURNED_OVER = ("rolled", "resolved")  # a planned or skipped card stays face down


def _action(state: ContingencyState, planned: Planned, viewer: Viewer) -> c.ActionView:
    secret = planned.status not in TURNED_OVER and not sees_intent(state, planned.character, viewer)
    own = viewer.omniscient or viewer.controls(planned.character)
    return c.ActionView(
        id=planned.id,
        character=planned.character,
        type=planned.type,
        name=None if secret else planned.name,
        status=planned.status,
        target=planned.target,
        difficulty=planned.difficulty,
        change_penalty=planned.change_penalty,
        change_asked=planned.asked if own else None,
        result=planned.result,
        success=planned.success,
    )


def redact(state: ContingencyState, event: c.Event | Revealed, viewer: Viewer) -> c.Event | Revealed | None:
    """An event as a viewer may see it: face-down names removed, only types left."""
    hides = _HIDES.get(type(event))
    return event if hides is None else hides(state, event, viewer)


def _revealed(state: ContingencyState, event: Revealed, viewer: Viewer) -> Revealed:
    if state.mode != "face_down":
        return event
    return msgspec.structs.replace(event, entries=[_entry(state, e, viewer) for e in event.entries])


def _change_asked(state: ContingencyState, event: c.ChangeAsked, viewer: Viewer) -> c.ChangeAsked:
    planned = state.actions.get(event.action)
    character = planned.character if planned is not None else ""
    if viewer.omniscient or viewer.controls(character):
        return event
    return msgspec.structs.replace(event, to=None, action_type=None)  # in either mode: it may never be played


def _action_skipped(state: ContingencyState, event: c.ActionSkipped, viewer: Viewer) -> c.ActionSkipped:
    if sees_intent(state, event.character, viewer):
        return event
    return msgspec.structs.replace(event, name=None)


def _omen_taken(state: ContingencyState, event: c.OmenTaken, viewer: Viewer) -> c.OmenTaken:
    if event.grants is None or sees_intent(state, event.character, viewer):
        return event
    return msgspec.structs.replace(event, grants=None)  # face down until the granted action is played


# The events some viewers may see less of, by their class (as ``evolve``'s ``BY_EVENT``); every other one is shown
# whole.
_HIDES: dict[type, Callable[[ContingencyState, Any, Viewer], c.Event | Revealed | None]] = {
    Revealed: _revealed,
    c.ChangeAsked: _change_asked,
    c.ActionSkipped: _action_skipped,
    c.OmenTaken: _omen_taken,
}


def _entry(state: ContingencyState, entry: RevealEntry, viewer: Viewer) -> RevealEntry:
    payload = entry.payload
    if sees_intent(state, entry.participant, viewer) or not isinstance(payload, c.Intent):
        return entry
    types: list[c.ActionType] = [
        state.catalogue[name].type if name in state.catalogue else "Combat" for name in payload.actions
    ]
    return msgspec.structs.replace(entry, payload=c.FaceDownIntent(types=types), salt="")
