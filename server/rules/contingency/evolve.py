"""``evolve`` for a Contingency encounter: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from protocol.events import Revealed
from protocol.rulesets import contingency as c
from server.rules.contingency import zones as z
from server.rules.contingency.catalogue import REPOSITION
from server.rules.contingency.state import ContingencyState, Fighter, Planned, Rolling, enlist

replace = msgspec.structs.replace


def evolve(state: ContingencyState, event: c.Event | Revealed) -> ContingencyState:
    return BY_EVENT[type(event)](state, event)


def _landscape_changed(
    state: ContingencyState,
    event: c.ZoneAdded
    | c.ZoneRemoved
    | c.ZoneSplit
    | c.ZonesMerged
    | c.TraitAdded
    | c.TraitRemoved
    | c.ModifierSet
    | c.Connected
    | c.Disconnected
    | c.BarrierSet,
) -> ContingencyState:
    return _settle(_landscape(state, event))


def _character_added(state: ContingencyState, event: c.CharacterAdded) -> ContingencyState:
    return _with_fighter(state, enlist(event.character, player=False))


def _character_removed(state: ContingencyState, event: c.CharacterRemoved) -> ContingencyState:
    fighters = {k: f for k, f in state.fighters.items() if k != event.character}
    rolling = state.rolling if state.rolling is None or state.rolling.character != event.character else None
    return _settle(replace(state, fighters=fighters, rolling=rolling))


def _character_placed(state: ContingencyState, event: c.Placed) -> ContingencyState:
    fighter = state.fighters[event.character]
    return _settle(_with_fighter(state, replace(fighter, zone=event.zone)))


def _engaged(state: ContingencyState, event: c.Engaged) -> ContingencyState:
    return replace(state, engagements=sorted({*state.engagements, z.pair(event.a, event.b)}))


def _disengaged(state: ContingencyState, event: c.Disengaged) -> ContingencyState:
    gone = z.pair(event.a, event.b)
    return replace(state, engagements=[e for e in state.engagements if e != gone])


def _round_started(state: ContingencyState, event: c.RoundStarted) -> ContingencyState:
    fighters = {k: _fresh(f) for k, f in state.fighters.items()}
    return replace(
        state,
        round=event.round,
        phase="scene",
        fighters=fighters,
        actions={},
        order=[],
        rolling=None,
        last=None,
        last_sides=[],
        environmental=[],
    )


def _scene_set(state: ContingencyState, event: c.SceneSet) -> ContingencyState:
    return replace(state, scene=event.text, foreshadow=event.foreshadow)


def _intent_opened(state: ContingencyState, event: c.IntentOpened) -> ContingencyState:
    return replace(state, phase="intent")


def _order_set(state: ContingencyState, event: c.OrderSet) -> ContingencyState:
    return replace(state, order=list(event.order))


def _target_set(state: ContingencyState, event: c.TargetSet) -> ContingencyState:
    return _with_action(state, replace(state.actions[event.action], target=event.target))


def _difficulty_set(state: ContingencyState, event: c.DifficultySet) -> ContingencyState:
    return _with_action(state, replace(state.actions[event.action], difficulty=event.difficulty))


def _action_skipped(state: ContingencyState, event: c.ActionSkipped) -> ContingencyState:
    return _with_action(state, replace(state.actions[event.action], status="skipped"))


def _change_asked(state: ContingencyState, event: c.ChangeAsked) -> ContingencyState:
    return _with_action(state, replace(state.actions[event.action], asked=event.to))


def _change_ruled(state: ContingencyState, event: c.ChangeRuled) -> ContingencyState:
    planned = state.actions[event.action]
    if event.allow and planned.asked is not None:
        planned = replace(
            planned,
            name=planned.asked,
            type=state.catalogue[planned.asked].type,
            change_penalty=planned.change_penalty + event.penalty,
        )
    return _with_action(state, replace(planned, asked=None))


def _moved(state: ContingencyState, event: c.Moved) -> ContingencyState:
    fighter = state.fighters[event.character]
    moved = replace(fighter, zone=event.path[-1], mp=(fighter.mp or 0) - event.cost)
    return _settle(_with_fighter(state, moved))


def _omen_taken(state: ContingencyState, event: c.OmenTaken) -> ContingencyState:
    fighter = state.fighters[event.character]
    granted = [*fighter.granted, event.grants] if event.grants is not None else fighter.granted
    taken = replace(fighter, omens=fighter.omens - 1, omens_taken=[*fighter.omens_taken, event.omen], granted=granted)
    return _with_fighter(state, taken)


def _phase_changed(state: ContingencyState, event: c.PhaseChanged) -> ContingencyState:
    return replace(state, phase=event.phase)


def _environmental_acted(state: ContingencyState, event: c.EnvironmentalActed) -> ContingencyState:
    return replace(state, environmental=[*state.environmental, event.text])


def _round_ended(state: ContingencyState, event: c.RoundEnded) -> ContingencyState:
    return state


def _fresh(fighter: Fighter) -> Fighter:
    return Fighter(
        id=fighter.id,
        name=fighter.name,
        zone=fighter.zone,
        dice=fighter.dice,
        player=fighter.player,
        deck=fighter.deck,
        skills=fighter.skills,
    )


def _with_fighter(state: ContingencyState, fighter: Fighter) -> ContingencyState:
    return replace(state, fighters={**state.fighters, fighter.id: fighter})


def _with_action(state: ContingencyState, planned: Planned) -> ContingencyState:
    return replace(state, actions={**state.actions, planned.id: planned})


def _settle(state: ContingencyState) -> ContingencyState:
    """Engagements hold only between characters standing in the same zone."""
    fighters = state.fighters
    kept = [
        (a, b) for a, b in state.engagements if a in fighters and b in fighters and fighters[a].zone == fighters[b].zone
    ]
    return state if kept == state.engagements else replace(state, engagements=kept)


def _revealed(state: ContingencyState, event: Revealed) -> ContingencyState:
    actions: dict[str, Planned] = {}
    seq = 0
    for entry in event.entries:
        payload = entry.payload
        if not isinstance(payload, c.Intent) or entry.participant not in state.fighters:
            continue
        for i, name in enumerate(payload.actions, start=1):
            action_id = f"{entry.participant}.{i}"
            kind = state.catalogue[name].type if name in state.catalogue else "Combat"
            actions[action_id] = Planned(id=action_id, character=entry.participant, name=name, type=kind, seq=seq)
            seq += 1
    return replace(state, phase="resolving", actions=actions, order=[])


def _placed(where: Mapping[str, str], ids: Iterable[str], into: str) -> dict[str, str]:
    return {i: where.get(i, into) for i in ids}


def _landscape(state: ContingencyState, event: c.Event) -> ContingencyState:
    zones = dict(state.zones)
    connections = list(state.connections)
    fighters = dict(state.fighters)
    things = dict(state.things)
    match event:
        case c.ZoneAdded():
            zones[event.zone.id] = event.zone
            connections += event.connections
        case c.ZoneRemoved():
            del zones[event.zone]
            connections = [k for k in connections if event.zone not in (k.a, k.b)]
            for who, where in event.placements.items():
                if who in fighters:
                    fighters[who] = replace(fighters[who], zone=where)
            things = {k: t for k, t in things.items() if t.zone != event.zone}
            zones = _redirect(zones, {event.zone}, None)
        case c.ZoneSplit():
            del zones[event.zone]
            zones.update({part.id: part for part in event.into})
            connections = [k for k in connections if event.zone not in (k.a, k.b)] + list(event.connections)
            first = event.into[0].id
            for k, f in fighters.items():
                if f.zone == event.zone:
                    fighters[k] = replace(f, zone=event.placements.get(k, first))
            for k, t in things.items():
                if t.zone == event.zone:
                    things[k] = replace(t, zone=event.placements.get(k, first))
            zones = _redirect(zones, {event.zone}, first)
        case c.ZonesMerged():
            merged = set(event.zones)
            for old in merged:
                zones.pop(old, None)
            zones[event.into.id] = event.into
            connections = [k for k in connections if not ({k.a, k.b} & merged)] + list(event.connections)
            for k, f in fighters.items():
                if f.zone in merged:
                    fighters[k] = replace(f, zone=event.into.id)
            for k, t in things.items():
                if t.zone in merged:
                    things[k] = replace(t, zone=event.into.id)
            zones = _redirect(zones, merged, event.into.id)
        case c.TraitAdded():
            zone = zones[event.zone]
            zones[event.zone] = replace(zone, traits=[*zone.traits, event.trait])
        case c.TraitRemoved():
            zone = zones[event.zone]
            zones[event.zone] = replace(zone, traits=[t for t in zone.traits if t != event.trait])
        case c.ModifierSet():
            zones[event.zone] = replace(zones[event.zone], modifier=event.modifier, forced_to=event.forced_to)
        case c.Connected():
            connections.append(event.connection)
        case c.Disconnected():
            gone = z.pair(event.a, event.b)
            connections = [k for k in connections if z.pair(k.a, k.b) != gone]
        case c.BarrierSet():
            gone = z.pair(event.a, event.b)
            connections = [replace(k, barrier=event.barrier) if z.pair(k.a, k.b) == gone else k for k in connections]
        case _:
            return state
    return replace(state, zones=zones, connections=connections, fighters=fighters, things=things)


def _redirect(zones: dict[str, c.Zone], gone: set[str], into: str | None) -> dict[str, c.Zone]:
    """Forced-movement zones that swept into a zone that is gone now sweep into its successor."""
    out: dict[str, c.Zone] = {}
    for k, zone in zones.items():
        if zone.forced_to in gone:
            zone = replace(zone, forced_to=into if into != k else None)
        out[k] = zone
    return out


def _stepped(state: ContingencyState, event: c.StepTaken) -> ContingencyState:
    fighter = replace(state.fighters[event.character], stepped=True)
    engagements = state.engagements
    if event.step.zone is not None:
        fighter = replace(fighter, zone=event.step.zone)
    if event.step.engage is not None:
        engagements = sorted({*engagements, z.pair(event.character, event.step.engage)})
    return _settle(replace(_with_fighter(state, fighter), engagements=engagements))


def _rolled(state: ContingencyState, event: c.ActionRolled) -> ContingencyState:
    planned = state.actions.get(event.action)
    if planned is None:
        planned = Planned(
            id=event.action, character=event.character, name=event.name, type=event.action_type, seq=len(state.actions)
        )
        if event.kind != "announced":
            planned = replace(planned, kind=event.kind)
    planned = replace(planned, status="rolled", target=event.target, difficulty=event.difficulty)
    fighter = state.fighters[event.character]
    if event.kind == "instant":
        granted = list(fighter.granted)
        if event.name in granted:
            granted.remove(event.name)
        fighter = replace(fighter, granted=granted)
    else:
        fighter = replace(fighter, taken=fighter.taken + 1, performed=[*fighter.performed, event.name])
    if event.action_type == "Movement":
        fighter = replace(fighter, moved=True)
    rolling = Rolling(
        action=event.action,
        character=event.character,
        faces=list(event.dice.faces),
        sides=list(event.dice.sides),
        penalty=event.penalty,
    )
    return replace(_with_action(_with_fighter(state, fighter), planned), rolling=rolling)


def _resolved(state: ContingencyState, event: c.ActionResolved) -> ContingencyState:
    planned = replace(state.actions[event.action], status="resolved", result=event.result, success=event.success)
    fighter = state.fighters[event.character]
    fighter = replace(
        fighter,
        omens=event.omens,
        omens_taken=fighter.omens_taken if planned.kind == "instant" else [],
        last=event.action,
    )
    if planned.name == REPOSITION:
        fighter = replace(fighter, mp=z.movement_points(event.result))
    rolling = state.rolling
    sides = list(rolling.sides) if rolling is not None and rolling.action == event.action else []
    return replace(_with_action(_with_fighter(state, fighter), planned), rolling=None, last=event, last_sides=sides)


# Each event's own class picks its fold: a failed class pattern costs ~1000 instructions (events are final classes).
BY_EVENT: dict[type, Callable[[ContingencyState, Any], ContingencyState]] = {
    Revealed: _revealed,
    c.ZoneAdded: _landscape_changed,
    c.ZoneRemoved: _landscape_changed,
    c.ZoneSplit: _landscape_changed,
    c.ZonesMerged: _landscape_changed,
    c.TraitAdded: _landscape_changed,
    c.TraitRemoved: _landscape_changed,
    c.ModifierSet: _landscape_changed,
    c.Connected: _landscape_changed,
    c.Disconnected: _landscape_changed,
    c.BarrierSet: _landscape_changed,
    c.CharacterAdded: _character_added,
    c.CharacterRemoved: _character_removed,
    c.Placed: _character_placed,
    c.Engaged: _engaged,
    c.Disengaged: _disengaged,
    c.RoundStarted: _round_started,
    c.SceneSet: _scene_set,
    c.IntentOpened: _intent_opened,
    c.OrderSet: _order_set,
    c.TargetSet: _target_set,
    c.DifficultySet: _difficulty_set,
    c.StepTaken: _stepped,
    c.ActionRolled: _rolled,
    c.ActionResolved: _resolved,
    c.ActionSkipped: _action_skipped,
    c.ChangeAsked: _change_asked,
    c.ChangeRuled: _change_ruled,
    c.Moved: _moved,
    c.OmenTaken: _omen_taken,
    c.PhaseChanged: _phase_changed,
    c.EnvironmentalActed: _environmental_acted,
    c.RoundEnded: _round_ended,
}
