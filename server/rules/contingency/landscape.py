"""Changing landscapes: the GM's commands on the map, checked, each becoming one event."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import assert_never

import msgspec

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import contingency as c
from server.engine.ruleset import Context
from server.rules.contingency import codes, limits, lookup
from server.rules.contingency import zones as z
from server.rules.contingency.evolve import evolve
from server.rules.contingency.lookup import character_called, zone_called
from server.rules.contingency.state import ContingencyState

replace = msgspec.structs.replace

LandscapeCommand = (
    c.AddZone
    | c.RemoveZone
    | c.SplitZone
    | c.MergeZones
    | c.AddTrait
    | c.RemoveTrait
    | c.SetModifier
    | c.Connect
    | c.Disconnect
    | c.SetBarrier
    | c.AddCharacter
    | c.RemoveCharacter
    | c.Place
    | c.Engage
    | c.Disengage
)


def decide_landscape(state: ContingencyState, command: LandscapeCommand, ctx: Context) -> list[c.Event]:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, "only a GM changes the landscape")
    events = _changes(state, command)
    after = state
    for event in events:
        after = evolve(after, event)
    limits.check_grown(state, after)
    return events


def _changes(state: ContingencyState, command: LandscapeCommand) -> list[c.Event]:
    match command:
        case c.AddZone():
            shown = lookup.zone_names(state)
            new = check_zone(command.zone, state.ids(), set(state.zones) | {command.zone.id}, "zone", shown)
            connections = lookup.ends(command.connections, {**shown, new.id: new.name}, "connections")
            check_connections(connections, set(state.zones) | {new.id}, state.connections, "connections")
            return [c.ZoneAdded(zone=new, connections=connections)]
        case c.RemoveZone():
            zone = _zone(state, command.zone, "zone")
            if len(state.zones) == 1:
                raise Refused(codes.LAST_ZONE, "zone: an encounter keeps at least one zone")
            others = {k: v for k, v in lookup.zone_names(state).items() if k != zone}
            placements = _placements(state, zone, command.placements, others, placed=_standing(state, zone))
            return [c.ZoneRemoved(zone=zone, placements=placements)]
        case c.SplitZone():
            return [_split(state, command)]
        case c.MergeZones():
            return [_merge(state, command)]
        case c.AddTrait():
            where = state.zones[_zone(state, command.zone, "zone")]
            trait = command.trait.strip()
            if not trait:
                raise Refused(codes.NO_TRAIT, "trait: a trait has a name")
            if trait in where.traits:
                raise Refused(codes.HAS_TRAIT, f"trait: {where.name} is already {trait}")
            return [c.TraitAdded(zone=where.id, trait=trait)]
        case c.RemoveTrait():
            where = state.zones[_zone(state, command.zone, "zone")]
            if command.trait not in where.traits:
                raise Refused(codes.NO_TRAIT, f"trait: {where.name} is not {command.trait}")
            return [c.TraitRemoved(zone=where.id, trait=command.trait)]
        case c.SetModifier():
            zone = _zone(state, command.zone, "zone")
            _modifier(command.modifier, "modifier")
            forced_to = None if command.forced_to is None else _zone(state, command.forced_to, "forced_to")
            if forced_to == zone:
                raise Refused(codes.BAD_MODIFIER, "forced_to: a zone cannot sweep into itself")
            return [c.ModifierSet(zone=zone, modifier=command.modifier, forced_to=forced_to)]
        case c.Connect():
            shown = lookup.zone_names(state)
            link = command.connection
            a = lookup.pick(link.a, shown, "connection.a", codes.NO_SUCH_ZONE, lookup.ZONE)
            b = lookup.pick(link.b, shown, "connection.b", codes.NO_SUCH_ZONE, lookup.ZONE)
            link = link if (a, b) == (link.a, link.b) else c.Connection(a=a, b=b, barrier=link.barrier)
            check_connections([link], set(state.zones), state.connections, "connection")
            return [c.Connected(connection=link)]
        case c.Disconnect():
            a, b = _ends(state, command.a, command.b)
            _connection(state, a, b)
            return [c.Disconnected(a=a, b=b)]
        case c.SetBarrier():
            a, b = _ends(state, command.a, command.b)
            _connection(state, a, b)
            if command.barrier is not None:
                _barrier(command.barrier, "barrier")
            return [c.BarrierSet(a=a, b=b, barrier=command.barrier)]
        case c.AddCharacter():
            shown = lookup.zone_names(state)
            added = check_character(command.character, state.ids(), set(state.zones), "character", shown=shown)
            check_cards(added.actions, set(state.catalogue), codes.UNKNOWN_ACTION, "character.actions")
            return [c.CharacterAdded(character=added)]
        case c.RemoveCharacter():
            return [c.CharacterRemoved(character=_character(state, command.character, "character"))]
        case c.Place():
            who = _character(state, command.character, "character")
            return [c.Placed(character=who, zone=_zone(state, command.zone, "zone"))]
        case c.Engage():
            a, b = _character(state, command.a, "a"), _character(state, command.b, "b")
            check_engagement(state, a, b)
            if state.engaged(a, b):
                raise Refused(codes.ALREADY_ENGAGED, f"b: {_pair(state, a, b)} are already engaged")
            return [c.Engaged(a=a, b=b)]
        case c.Disengage():
            a = _character(state, command.a, "a", codes.NOT_ENGAGED)
            b = _character(state, command.b, "b", codes.NOT_ENGAGED)
            if not state.engaged(a, b):
                raise Refused(codes.NOT_ENGAGED, f"b: {_pair(state, a, b)} are not engaged")
            return [c.Disengaged(a=a, b=b)]
        case _:
            assert_never(command)


# --- checks shared with the setup -----------------------------------------------------------------------


def check_zone(
    zone: c.Zone, taken: set[str], zones: set[str], field: str, shown: Mapping[str, str] | None = None
) -> c.Zone:
    """A zone the map can hold, as it is stored: where a command names the zone it sweeps into by a name of
    ``shown`` (the zones' names by id), with that zone's id."""
    if not zone.id or zone.id in taken:
        raise Refused(codes.ID_TAKEN, f"{field}.id: {zone.id!r} is empty or already names something")
    _modifier(zone.modifier, f"{field}.modifier")
    seen: set[str] = set()
    for i, trait in enumerate(zone.traits):
        if not trait.strip():
            raise Refused(codes.NO_TRAIT, f"{field}.traits[{i}]: a trait has a name")
        if trait.strip() in seen:
            raise Refused(codes.HAS_TRAIT, f"{field}.traits[{i}]: {zone.name} is already {trait.strip()}")
        seen.add(trait.strip())
    if zone.forced_to is not None and shown is not None:
        others = {k: v for k, v in shown.items() if k != zone.id}
        forced_to = lookup.pick(zone.forced_to, others, f"{field}.forced_to", codes.NO_SUCH_ZONE, lookup.ZONE)
        zone = zone if forced_to == zone.forced_to else replace(zone, forced_to=forced_to)
    if zone.forced_to is not None and (zone.forced_to not in zones or zone.forced_to == zone.id):
        raise Refused(codes.NO_SUCH_ZONE, f"{field}.forced_to: no other zone {zone.forced_to!r}")
    return zone


def check_connections(
    new: Sequence[c.Connection], zones: set[str], existing: Iterable[c.Connection], field: str
) -> None:
    seen = {z.pair(k.a, k.b) for k in existing}
    for i, k in enumerate(new):
        for end in (k.a, k.b):
            if end not in zones:
                raise Refused(codes.NO_SUCH_ZONE, f"{field}[{i}]: no zone {end!r}")
        if k.a == k.b:
            raise Refused(codes.BAD_CONNECTION, f"{field}[{i}]: a connection joins two different zones")
        if z.pair(k.a, k.b) in seen:
            raise Refused(codes.ALREADY_CONNECTED, f"{field}[{i}]: {k.a} and {k.b} are already connected")
        seen.add(z.pair(k.a, k.b))
        if k.barrier is not None:
            _barrier(k.barrier, f"{field}[{i}].barrier")


def check_character(
    character: c.Character,
    taken: set[str],
    zones: set[str],
    field: str,
    *,
    bounded: bool = True,
    shown: Mapping[str, str] | None = None,
) -> c.Character:
    """A character the table can hold, as it is stored; ``bounded``: within the table limits too (a new one, not
    a stored one). Where a command names its zone by a name of ``shown`` (the zones' names by id), with its id."""
    if not character.id or character.id in taken:
        raise Refused(codes.ID_TAKEN, f"{field}.id: {character.id!r} is empty or already names something")
    if shown is not None:
        zone = lookup.pick(character.zone, shown, f"{field}.zone", codes.NO_SUCH_ZONE, lookup.ZONE)
        character = character if zone == character.zone else replace(character, zone=zone)
    if character.zone not in zones:
        raise Refused(codes.NO_SUCH_ZONE, f"{field}.zone: no zone {character.zone!r}")
    _three_dice(character.dice, f"{field}.dice")
    if bounded:
        limits.check_skills(character, field)
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(character.skills):
        where = f"{field}.skills[{i}]"
        if not entry.attribute.strip() or not entry.skill.strip() or "/" in entry.attribute + entry.skill:
            raise Refused(codes.BAD_DICE, f"{where}: name an attribute and a skill (no '/')")
        if (entry.attribute, entry.skill) in seen:
            raise Refused(codes.BAD_DICE, f"{where}: {entry.attribute} with {entry.skill} is listed twice")
        seen.add((entry.attribute, entry.skill))
        _three_dice(entry.dice, f"{where}.dice")
    return character


def check_cards(cards: Sequence[str], known: set[str], code: str, field: str, *, bounded: bool = True) -> None:
    """A character's action cards are actions of the table (the GM names them: no secret to keep)."""
    if bounded:
        limits.check_hand(cards, code, field)
    unknown = sorted(set(cards) - known)
    if unknown:
        raise Refused(code, f"{field}: {unknown} are not actions of this table")


def _three_dice(dice: Sequence[int], field: str) -> None:
    if len(dice) != 3 or not all(2 <= d <= 100 for d in dice):
        raise Refused(codes.BAD_DICE, f"{field}: a skill roll is three dice of 2 to 100 sides")


def check_engagement(state: ContingencyState, a: str, b: str) -> None:
    _character(state, a, "a")
    _character(state, b, "b")
    if a == b:
        raise Refused(codes.NOT_IN_ZONE, "b: a character does not engage itself")
    if state.fighters[a].zone != state.fighters[b].zone:
        raise Refused(
            codes.NOT_IN_ZONE,
            f"b: {character_called(state, b)} is not in the same zone as {character_called(state, a)}",
        )


def _modifier(value: int, field: str) -> None:
    if not 0 <= value <= 100:
        raise Refused(codes.BAD_MODIFIER, f"{field}: a movement modifier is 0 to 100 extra points")


def _barrier(barrier: c.Barrier, field: str) -> None:
    if not 1 <= barrier.difficulty <= 100:
        raise Refused(codes.BAD_DIFFICULTY, f"{field}.difficulty: {barrier.difficulty} is not 1 to 100")
    if not barrier.action.strip():
        raise Refused(codes.UNKNOWN_ACTION, f"{field}.action: a barrier names the action that crosses it")


def _zone(state: ContingencyState, zone: str, field: str) -> str:
    """The id of the zone a command names by its id or its name."""
    return lookup.zone(state, zone, field)


def _character(state: ContingencyState, character: str, field: str, code: str = codes.NO_SUCH_CHARACTER) -> str:
    """The id of the character a command names by its id or its name."""
    return lookup.character(state, character, field, code)


def _ends(state: ContingencyState, a: str, b: str) -> tuple[str, str]:
    """The two zones of a connection named by a command."""
    return (
        lookup.zone(state, a, "a", codes.NOT_CONNECTED),
        lookup.zone(state, b, "b", codes.NOT_CONNECTED),
    )


def _pair(state: ContingencyState, a: str, b: str) -> str:
    return f"{character_called(state, a)} and {character_called(state, b)}"


def _connection(state: ContingencyState, a: str, b: str) -> c.Connection:
    found = z.between(state.connections, a, b)
    if found is None:
        raise Refused(codes.NOT_CONNECTED, f"b: {zone_called(state, a)} and {zone_called(state, b)} are not connected")
    return found


def _standing(state: ContingencyState, zone: str) -> set[str]:
    return {k for k, f in state.fighters.items() if f.zone == zone}


def _placements(
    state: ContingencyState,
    zone: str,
    placements: dict[str, str],
    into: Mapping[str, str],
    placed: set[str],
    things: bool = False,
) -> dict[str, str]:
    """Everyone standing in ``zone`` is placed in one of ``into`` (zones' names by id; things may be placed too):
    the placements by id, whether the command named them by id or by name."""
    movable = {k: f.name for k, f in state.fighters.items() if k in placed}
    if things:
        movable.update((k, t.name) for k, t in state.things.items() if t.zone == zone)
    kind = lookup.Kind("character or thing", "characters and things") if things else lookup.CHARACTER
    there = f" in {zone_called(state, zone)}"
    out: dict[str, str] = {}
    for who, where in placements.items():
        ident = lookup.pick(who, movable, f"placements.{who}", codes.BAD_PLACEMENT, kind, there)
        if ident in out:
            raise Refused(codes.BAD_PLACEMENT, f"placements.{who}: {movable[ident]} is placed twice")
        out[ident] = lookup.pick(where, into, f"placements.{who}", codes.BAD_PLACEMENT, lookup.ZONE)
    missing = sorted(placed - set(out))
    if missing:
        who = ", ".join(character_called(state, k) for k in missing)
        raise Refused(codes.UNPLACED, f"placements: place {who} (standing in {zone_called(state, zone)})")
    return out


def _split(state: ContingencyState, command: c.SplitZone) -> c.ZoneSplit:
    old = _zone(state, command.zone, "zone")
    if len(command.into) < 2:
        raise Refused(codes.BAD_SPLIT, "into: a zone splits into two or more zones")
    taken = state.ids() - {old}
    named = {p.id: p.name for p in command.into}
    shown = {**{k: v for k, v in lookup.zone_names(state).items() if k != old}, **named}
    into: list[c.Zone] = []
    for i, part in enumerate(command.into):
        if any(p.id == part.id for p in into):
            raise Refused(codes.ID_TAKEN, f"into[{i}].id: {part.id!r} is used twice")
        into.append(check_zone(part, taken, (set(state.zones) - {old}) | set(named), f"into[{i}]", shown))
    parts = set(named)
    placements = _placements(state, old, command.placements, named, placed=_standing(state, old), things=True)
    zones_after = (set(state.zones) - {old}) | parts
    if command.connections is None:
        connections = _inherited(state, old, [p.id for p in into])
    else:
        connections = lookup.ends(command.connections, shown, "connections")
        for i, k in enumerate(connections):
            if not ({k.a, k.b} & parts):
                raise Refused(codes.BAD_CONNECTION, f"connections[{i}]: connect one of the new zones")
        outside = [k for k in state.connections if old not in (k.a, k.b)]
        check_connections(connections, zones_after, outside, "connections")
    return c.ZoneSplit(zone=old, into=into, connections=connections, placements=placements)


def _inherited(state: ContingencyState, old: str, parts: list[str]) -> list[c.Connection]:
    """The parts touch one another and every neighbour of the old zone, across the same barriers."""
    out = [c.Connection(a=p, b=q) for i, p in enumerate(parts) for q in parts[i + 1 :]]
    for k in state.connections:
        if old in (k.a, k.b):
            other = k.b if k.a == old else k.a
            out += [c.Connection(a=p, b=other, barrier=k.barrier) for p in parts]
    return out


def _merge(state: ContingencyState, command: c.MergeZones) -> c.ZonesMerged:
    if len(set(command.zones)) < 2:
        raise Refused(codes.BAD_MERGE, "zones: merge two or more zones")
    merged = list(dict.fromkeys(_zone(state, zone, f"zones[{i}]") for i, zone in enumerate(command.zones)))
    if len(merged) < 2:
        raise Refused(codes.BAD_MERGE, "zones: merge two or more zones")
    gone = set(merged)
    shown = {k: v for k, v in lookup.zone_names(state).items() if k not in gone}
    into = check_zone(command.into, state.ids() - gone, (set(state.zones) - gone) | {command.into.id}, "into", shown)
    outside: dict[str, c.Connection] = {}
    for k in state.connections:
        ends = {k.a, k.b}
        if len(ends & gone) != 1:
            continue
        other = (ends - gone).pop()
        kept = outside.get(other)
        if kept is None or (kept.barrier is not None and k.barrier is None):
            outside[other] = c.Connection(a=into.id, b=other, barrier=k.barrier)
    return c.ZonesMerged(zones=merged, into=into, connections=list(outside.values()))
