"""Changing landscapes: the GM's commands on the map, checked, each becoming one event."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import assert_never

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import contingency as c
from server.engine.ruleset import Context
from server.rules.contingency import codes, limits
from server.rules.contingency import zones as z
from server.rules.contingency.evolve import evolve
from server.rules.contingency.state import ContingencyState

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
            check_zone(command.zone, state.ids(), set(state.zones) | {command.zone.id}, "zone")
            zones = set(state.zones) | {command.zone.id}
            check_connections(command.connections, zones, state.connections, "connections")
            return [c.ZoneAdded(zone=command.zone, connections=list(command.connections))]
        case c.RemoveZone():
            zone = _zone(state, command.zone, "zone")
            if len(state.zones) == 1:
                raise Refused(codes.LAST_ZONE, "zone: an encounter keeps at least one zone")
            others = set(state.zones) - {zone}
            _placements(state, zone, command.placements, others, placed=_standing(state, zone))
            return [c.ZoneRemoved(zone=zone, placements=dict(command.placements))]
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
            if command.forced_to is not None:
                _zone(state, command.forced_to, "forced_to")
                if command.forced_to == zone:
                    raise Refused(codes.BAD_MODIFIER, "forced_to: a zone cannot sweep into itself")
            return [c.ModifierSet(zone=zone, modifier=command.modifier, forced_to=command.forced_to)]
        case c.Connect():
            check_connections([command.connection], set(state.zones), state.connections, "connection")
            return [c.Connected(connection=command.connection)]
        case c.Disconnect():
            _connection(state, command.a, command.b)
            return [c.Disconnected(a=command.a, b=command.b)]
        case c.SetBarrier():
            _connection(state, command.a, command.b)
            if command.barrier is not None:
                _barrier(command.barrier, "barrier")
            return [c.BarrierSet(a=command.a, b=command.b, barrier=command.barrier)]
        case c.AddCharacter():
            check_character(command.character, state.ids(), set(state.zones), "character")
            check_cards(command.character.actions, set(state.catalogue), codes.UNKNOWN_ACTION, "character.actions")
            return [c.CharacterAdded(character=command.character)]
        case c.RemoveCharacter():
            _character(state, command.character, "character")
            return [c.CharacterRemoved(character=command.character)]
        case c.Place():
            _character(state, command.character, "character")
            _zone(state, command.zone, "zone")
            return [c.Placed(character=command.character, zone=command.zone)]
        case c.Engage():
            check_engagement(state, command.a, command.b)
            if state.engaged(command.a, command.b):
                raise Refused(codes.ALREADY_ENGAGED, f"b: {command.a} and {command.b} are already engaged")
            return [c.Engaged(a=command.a, b=command.b)]
        case c.Disengage():
            if not state.engaged(command.a, command.b):
                raise Refused(codes.NOT_ENGAGED, f"b: {command.a} and {command.b} are not engaged")
            return [c.Disengaged(a=command.a, b=command.b)]
        case _:
            assert_never(command)


# --- checks shared with the setup -----------------------------------------------------------------------


def check_zone(zone: c.Zone, taken: set[str], zones: set[str], field: str) -> None:
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
    if zone.forced_to is not None and (zone.forced_to not in zones or zone.forced_to == zone.id):
        raise Refused(codes.NO_SUCH_ZONE, f"{field}.forced_to: no other zone {zone.forced_to!r}")


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
    character: c.Character, taken: set[str], zones: set[str], field: str, *, bounded: bool = True
) -> None:
    """A character the table can hold; ``bounded``: within the table limits too (a new one, not a stored one)."""
    if not character.id or character.id in taken:
        raise Refused(codes.ID_TAKEN, f"{field}.id: {character.id!r} is empty or already names something")
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
        raise Refused(codes.NOT_IN_ZONE, f"b: {b} is not in the same zone as {a}")


def _modifier(value: int, field: str) -> None:
    if not 0 <= value <= 100:
        raise Refused(codes.BAD_MODIFIER, f"{field}: a movement modifier is 0 to 100 extra points")


def _barrier(barrier: c.Barrier, field: str) -> None:
    if not 1 <= barrier.difficulty <= 100:
        raise Refused(codes.BAD_DIFFICULTY, f"{field}.difficulty: {barrier.difficulty} is not 1 to 100")
    if not barrier.action.strip():
        raise Refused(codes.UNKNOWN_ACTION, f"{field}.action: a barrier names the action that crosses it")


def _zone(state: ContingencyState, zone: str, field: str) -> str:
    if zone not in state.zones:
        raise Refused(codes.NO_SUCH_ZONE, f"{field}: no zone {zone!r}")
    return zone


def _character(state: ContingencyState, character: str, field: str) -> str:
    if character not in state.fighters:
        raise Refused(codes.NO_SUCH_CHARACTER, f"{field}: no character {character!r}")
    return character


def _connection(state: ContingencyState, a: str, b: str) -> c.Connection:
    found = z.between(state.connections, a, b)
    if found is None:
        raise Refused(codes.NOT_CONNECTED, f"b: {a} and {b} are not connected")
    return found


def _standing(state: ContingencyState, zone: str) -> set[str]:
    return {k for k, f in state.fighters.items() if f.zone == zone}


def _placements(
    state: ContingencyState,
    zone: str,
    placements: dict[str, str],
    into: set[str],
    placed: set[str],
    things: bool = False,
) -> None:
    """Everyone standing in ``zone`` is placed in one of ``into`` (things may be placed too)."""
    movable = placed | ({k for k, t in state.things.items() if t.zone == zone} if things else set())
    for who, where in placements.items():
        if who not in movable:
            raise Refused(codes.BAD_PLACEMENT, f"placements.{who}: not someone or something in {zone}")
        if where not in into:
            raise Refused(codes.BAD_PLACEMENT, f"placements.{who}: {where!r} is not one of {sorted(into)}")
    missing = sorted(placed - set(placements))
    if missing:
        raise Refused(codes.UNPLACED, f"placements: place {', '.join(missing)} (standing in {zone})")


def _split(state: ContingencyState, command: c.SplitZone) -> c.ZoneSplit:
    old = _zone(state, command.zone, "zone")
    if len(command.into) < 2:
        raise Refused(codes.BAD_SPLIT, "into: a zone splits into two or more zones")
    taken = state.ids() - {old}
    parts: set[str] = set()
    for i, part in enumerate(command.into):
        if part.id in parts:
            raise Refused(codes.ID_TAKEN, f"into[{i}].id: {part.id!r} is used twice")
        check_zone(part, taken, (set(state.zones) - {old}) | {p.id for p in command.into}, f"into[{i}]")
        parts.add(part.id)
    _placements(state, old, command.placements, parts, placed=_standing(state, old), things=True)
    zones_after = (set(state.zones) - {old}) | parts
    if command.connections is None:
        connections = _inherited(state, old, [p.id for p in command.into])
    else:
        connections = list(command.connections)
        for i, k in enumerate(connections):
            if not ({k.a, k.b} & parts):
                raise Refused(codes.BAD_CONNECTION, f"connections[{i}]: connect one of the new zones")
        outside = [k for k in state.connections if old not in (k.a, k.b)]
        check_connections(connections, zones_after, outside, "connections")
    return c.ZoneSplit(zone=old, into=list(command.into), connections=connections, placements=dict(command.placements))


def _inherited(state: ContingencyState, old: str, parts: list[str]) -> list[c.Connection]:
    """The parts touch one another and every neighbour of the old zone, across the same barriers."""
    out = [c.Connection(a=p, b=q) for i, p in enumerate(parts) for q in parts[i + 1 :]]
    for k in state.connections:
        if old in (k.a, k.b):
            other = k.b if k.a == old else k.a
            out += [c.Connection(a=p, b=other, barrier=k.barrier) for p in parts]
    return out


def _merge(state: ContingencyState, command: c.MergeZones) -> c.ZonesMerged:
    merged = list(dict.fromkeys(command.zones))
    if len(merged) < 2:
        raise Refused(codes.BAD_MERGE, "zones: merge two or more zones")
    for i, zone in enumerate(merged):
        _zone(state, zone, f"zones[{i}]")
    gone = set(merged)
    check_zone(command.into, state.ids() - gone, (set(state.zones) - gone) | {command.into.id}, "into")
    outside: dict[str, c.Connection] = {}
    for k in state.connections:
        ends = {k.a, k.b}
        if len(ends & gone) != 1:
            continue
        other = (ends - gone).pop()
        kept = outside.get(other)
        if kept is None or (kept.barrier is not None and k.barrier is None):
            outside[other] = c.Connection(a=command.into.id, b=other, barrier=k.barrier)
    return c.ZonesMerged(zones=merged, into=command.into, connections=list(outside.values()))
