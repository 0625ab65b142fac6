"""What each viewer may see of an encounter, and how events are shown to those who may not see a secret.

In face-down mode an announced action shows only its type to everyone but its player and the GM until
it resolves (its ``ActionRolled`` turns the card over); so does the reveal, and so does an omen's grant (the
action it lets the character perform as an Instant action is named to others only when it is performed). A
change asked for is its player's and the GM's in either mode (the GM may refuse it, and the card asked for is
never played). A skipped action is never turned over: its name stays hidden in views, in its
``ActionSkipped`` and in the notice."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.events import Revealed, RevealEntry
from protocol.rulesets import contingency as c
from server.engine.ruleset import Viewer
from server.rules.contingency import order as o
from server.rules.contingency.state import ContingencyState, Fighter, Planned


def view(state: ContingencyState, viewer: Viewer) -> c.ContingencyView:
    return views(state, [viewer])[0]


def views(state: ContingencyState, viewers: Sequence[Viewer]) -> list[c.ContingencyView]:
    """Each viewer's view; the map, the order of play and the ranges, which every sight shares, worked out once."""
    if not viewers:
        return []
    fighters = state.fighters
    upcoming = o.queue(state)
    queued = {p.id for p in upcoming}
    done = sorted((p for p in state.actions.values() if p.status != "planned"), key=lambda p: p.seq)
    later = [p for p in state.actions.values() if p.status == "planned" and p.id not in queued]
    played = [*done, *upcoming, *later]
    rolling = state.rolling
    nxt = o.next_action(state, upcoming)
    engaged = o.partners(state)
    shared = c.ContingencyView(
        round=state.round,
        phase=state.phase,
        intent_mode=state.mode,
        scene=state.scene,
        foreshadow=state.foreshadow,
        zones=[
            c.ZoneView(
                id=zone.id,
                name=zone.name,
                traits=list(zone.traits),
                modifier=zone.modifier,
                forced_to=zone.forced_to,
                characters=[k for k, f in fighters.items() if f.zone == zone.id],
                things=[k for k, t in state.things.items() if t.zone == zone.id],
            )
            for zone in state.zones.values()
        ],
        connections=list(state.connections),
        characters=[],
        things=list(state.things.values()),
        ranges=o.every_range(state),
        actions=[],
        next_action=nxt.id if nxt is not None else None,
        rolling=None
        if rolling is None
        else c.RollView(
            action=rolling.action,
            character=rolling.character,
            faces=list(rolling.faces),
            sides=list(rolling.sides),
            penalty=rolling.penalty,
        ),
        last=state.last,
        last_sides=list(state.last_sides),
        environmental=list(state.environmental),
        catalogue=[],
    )
    return [
        msgspec.structs.replace(
            shared,
            characters=[_character(state, f, engaged[f.id], viewer) for f in fighters.values()],
            actions=[_action(state, p, viewer) for p in played],
            catalogue=_cards(state, viewer),
        )
        for viewer in viewers
    ]


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
    match event:
        case Revealed() if state.mode == "face_down":
            return msgspec.structs.replace(event, entries=[_entry(state, e, viewer) for e in event.entries])
        case c.ChangeAsked():
            planned = state.actions.get(event.action)
            character = planned.character if planned is not None else ""
            if viewer.omniscient or viewer.controls(character):
                return event
            return msgspec.structs.replace(event, to=None, action_type=None)  # in either mode: it may never be played
        case c.ActionSkipped() if not sees_intent(state, event.character, viewer):
            return msgspec.structs.replace(event, name=None)
        case c.OmenTaken() if event.grants is not None and not sees_intent(state, event.character, viewer):
            return msgspec.structs.replace(event, grants=None)  # face down until the granted action is played
        case _:
            return event


def _entry(state: ContingencyState, entry: RevealEntry, viewer: Viewer) -> RevealEntry:
    payload = entry.payload
    if sees_intent(state, entry.participant, viewer) or not isinstance(payload, c.Intent):
        return entry
    types: list[c.ActionType] = [
        state.catalogue[name].type if name in state.catalogue else "Combat" for name in payload.actions
    ]
    return msgspec.structs.replace(entry, payload=c.FaceDownIntent(types=types), salt="")
