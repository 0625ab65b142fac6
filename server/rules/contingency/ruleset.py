"""The `contingency` ruleset wired to the engine's contract."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.common import Seat
from protocol.errors import Refused
from protocol.events import Revealed
from protocol.rulesets import contingency as c
from server.engine.ruleset import Ruleset, Window
from server.rules.contingency import codes, limits
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from server.rules.contingency.decide import check_declaration, decide
from server.rules.contingency.describe import describe, names
from server.rules.contingency.evolve import evolve
from server.rules.contingency.landscape import (
    check_cards,
    check_character,
    check_connections,
    check_engagement,
    check_zone,
)
from server.rules.contingency.state import ContingencyState, enlist
from server.rules.contingency.view import MEMBERS, redact
from server.rules.contingency.waiting import waiting


def check_limits(setup: object) -> None:
    """A new encounter's table limits (docs/rules/contingency.md, "Table limits"); ``initial`` leaves them out,
    so an encounter stored under the wider limits of earlier releases still folds."""
    if not isinstance(setup, c.ContingencySetup):
        return  # ``initial`` refuses it
    limits.check_counts(
        len(setup.zones), len(setup.characters), len(setup.connections), len(setup.things), codes.BAD_SETUP
    )
    if len(setup.actions) > limits.MAX_ACTIONS:
        raise Refused(codes.BAD_SETUP, f"actions: a table has at most {limits.MAX_ACTIONS} actions")
    for i, zone in enumerate(setup.zones):
        if len(zone.traits) > limits.MAX_TRAITS:
            raise Refused(codes.BAD_SETUP, f"zones[{i}].traits: a zone has at most {limits.MAX_TRAITS} traits")
    for i, character in enumerate(setup.characters):
        limits.check_skills(character, f"characters[{i}]")
        limits.check_hand(character.actions, codes.BAD_SETUP, f"characters[{i}].actions")


def initial(setup: object, seats: Sequence[Seat]) -> ContingencyState:
    if not isinstance(setup, c.ContingencySetup):
        raise Refused(codes.BAD_SETUP, "setup: a contingency encounter needs a contingency.setup")
    if not setup.zones:
        raise Refused(codes.BAD_SETUP, "zones: an encounter has at least one zone")
    if not 1 <= setup.omen_at <= 100:
        raise Refused(codes.BAD_SETUP, "omen_at: 1 to 100")
    zone_ids = {zone.id for zone in setup.zones}
    taken: set[str] = set()
    for i, zone in enumerate(setup.zones):
        check_zone(zone, taken, zone_ids, f"zones[{i}]")
        taken.add(zone.id)
    check_connections(setup.connections, zone_ids, [], "connections")
    for i, character in enumerate(setup.characters):
        check_character(character, taken, zone_ids, f"characters[{i}]", bounded=False)
        taken.add(character.id)
    for i, thing in enumerate(setup.things):
        if not thing.id or thing.id in taken or thing.zone not in zone_ids:
            raise Refused(codes.BAD_SETUP, f"things[{i}]: a new id in an existing zone")
        taken.add(thing.id)
    names = [a.name for a in setup.actions]
    if len(set(names)) != len(names) or not all(n.strip() for n in names):
        raise Refused(codes.BAD_SETUP, "actions: each action has a distinct, non-empty name")
    known = set(names or [a.name for a in DEFAULT_ACTIONS])
    for i, character in enumerate(setup.characters):
        check_cards(character.actions, known, codes.BAD_SETUP, f"characters[{i}].actions", bounded=False)
    character_ids = {ch.id for ch in setup.characters}
    controlled: set[str] = set()
    for seat in seats:
        for named in seat.contestants:
            if named not in character_ids:
                raise Refused(codes.BAD_SETUP, f"seats: {seat.id!r} names no character {named!r}")
            if seat.role == "player":
                if named in controlled:
                    raise Refused(codes.BAD_SETUP, f"seats: {named!r} is controlled by two players")
                controlled.add(named)
    state = ContingencyState(
        mode=setup.intent,
        omen_rule=setup.omens,
        omen_at=setup.omen_at,
        players_type_faces=setup.players_type_faces,
        catalogue={a.name: a for a in (setup.actions or DEFAULT_ACTIONS)},
        zones={zone.id: zone for zone in setup.zones},
        connections=list(setup.connections),
        fighters={ch.id: enlist(ch, ch.id in controlled) for ch in setup.characters},
        things={t.id: t for t in setup.things},
        last_sides=[],
    )
    pairs: list[tuple[str, str]] = []
    for i, engagement in enumerate(setup.engagements):
        if len(engagement) != 2:
            raise Refused(codes.BAD_SETUP, f"engagements[{i}]: an engagement is a pair of characters")
        try:
            check_engagement(state, engagement[0], engagement[1])
        except Refused as refused:
            raise Refused(codes.BAD_SETUP, f"engagements[{i}]: {refused.message}") from None
        pairs.append((min(engagement), max(engagement)))
    return msgspec.structs.replace(state, engagements=sorted(set(pairs)))


def start(state: ContingencyState) -> list[c.Event]:
    return [c.RoundStarted(round=1)]


def window(state: ContingencyState) -> Window | None:
    if state.phase != "intent":
        return None
    return Window(id=f"round-{state.round}", expected=list(state.fighters))


CHECKPOINTS = (
    Revealed,
    c.RoundStarted,
    c.ActionResolved,
    c.ActionSkipped,
    c.Moved,
    c.PhaseChanged,
    c.EnvironmentalActed,
    c.ChangeRuled,
    c.ZoneAdded,
    c.ZoneRemoved,
    c.ZoneSplit,
    c.ZonesMerged,
    c.TraitAdded,
    c.TraitRemoved,
    c.ModifierSet,
    c.Connected,
    c.Disconnected,
    c.BarrierSet,
    c.CharacterAdded,
    c.CharacterRemoved,
    c.Placed,
    c.Engaged,
    c.Disengaged,
)


def is_checkpoint(event: object) -> bool:
    return isinstance(event, CHECKPOINTS)


def outcome(state: ContingencyState) -> None:
    """Concluding Combat is TBD in the rules text: the GM concludes the encounter; no outcome is computed."""
    return None


CONTINGENCY: Ruleset[ContingencyState] = Ruleset(
    name="contingency",
    state_type=ContingencyState,
    setup_type=c.ContingencySetup,
    initial=initial,
    start=start,
    decide=decide,
    evolve=evolve,
    view=MEMBERS.view,
    views=MEMBERS.views,
    touches=MEMBERS.touches,
    follow=MEMBERS.follow,
    outcome=outcome,
    window=window,
    check_declaration=check_declaration,
    is_checkpoint=is_checkpoint,
    describe=describe,
    names=names,
    check_limits=check_limits,
    redact=redact,
    waiting=waiting,
    command_type=c.Command,
    declaration_type=c.Intent,
)
