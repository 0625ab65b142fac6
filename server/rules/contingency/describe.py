"""Human-readable lines for an encounter's events and sealed intents (notices, replays), and the names they show
for the ids: zones, characters and things by their names, an action as its character's card ("Rook's Strike")."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import contingency as c
from server.engine.names import NO_NAMES, Names, called, listed
from server.rules.contingency.lookup import card
from server.rules.contingency.state import ContingencyState


def names(state: ContingencyState) -> Names:
    """Every id of the map by its name, and each action of the round by its character's name and its card. A
    face-down card not yet turned over is named by its type only, as everyone may see it: one naming serves
    every viewer."""
    shown = {k: zone.name for k, zone in state.zones.items() if zone.name.strip()}
    shown.update((k, fighter.name) for k, fighter in state.fighters.items() if fighter.name.strip())
    shown.update((k, thing.name) for k, thing in state.things.items() if thing.name.strip())
    for planned in state.actions.values():
        fighter = state.fighters.get(planned.character)
        if fighter is not None and fighter.name.strip():  # else an earlier state named it, with its character
            shown[planned.id] = card(state, planned, fighter.name)
    return shown


def _placed(placements: dict[str, str], names: Names) -> str:
    """Where the GM placed who stood in a zone that is gone: " (Rook to Bank, Wren to Ford)"."""
    moved = [f"{called(names, who)} to {called(names, where)}" for who, where in placements.items()]
    return f" ({', '.join(moved)})" if moved else ""


def _step(step: c.Step, names: Names) -> str:
    if step.engage is not None:
        return f"to engage {called(names, step.engage)}"
    if step.reach is not None:
        return f"to reach {called(names, step.reach)}"
    return f"into {called(names, step.zone)}"


def describe(event: c.Event | c.Intent | c.FaceDownIntent, names: Names = NO_NAMES) -> str:
    def n(ident: str | None) -> str:
        return called(names, ident)

    match event:
        case c.Intent():
            said = f" — “{event.note}”" if event.note else ""
            return (", ".join(event.actions) or "no action") + said
        case c.FaceDownIntent():
            return "face down: " + (", ".join(event.types) or "no action")
        case c.ZoneAdded():
            joined = {k.b if k.a == event.zone.id else k.a for k in event.connections}
            beside = f", beside {listed(names, sorted(joined, key=n))}" if joined else ""
            return f"zone {event.zone.name} appears{beside}"
        case c.ZoneRemoved():
            return f"zone {n(event.zone)} is gone{_placed(event.placements, names)}"
        case c.ZoneSplit():
            parts = ", ".join(p.name for p in event.into)
            return f"zone {n(event.zone)} splits into {parts}{_placed(event.placements, names)}"
        case c.ZonesMerged():
            return f"zones {listed(names, event.zones)} merge into {event.into.name}"
        case c.TraitAdded():
            return f"{n(event.zone)} is now {event.trait}"
        case c.TraitRemoved():
            return f"{n(event.zone)} is no longer {event.trait}"
        case c.ModifierSet():
            forced = f", sweeping into {n(event.forced_to)}" if event.forced_to else ""
            return f"{n(event.zone)} costs +{event.modifier} movement{forced}"
        case c.Connected():
            barrier = event.connection.barrier
            across = f" across a barrier ({barrier.action}, {barrier.difficulty})" if barrier else ""
            return f"{n(event.connection.a)} and {n(event.connection.b)} connect{across}"
        case c.Disconnected():
            return f"{n(event.a)} and {n(event.b)} no longer connect"
        case c.BarrierSet():
            if event.barrier is None:
                return f"the barrier between {n(event.a)} and {n(event.b)} is gone"
            return f"between {n(event.a)} and {n(event.b)}: {event.barrier.action} ({event.barrier.difficulty})"
        case c.CharacterAdded():
            return f"{event.character.name} joins in {n(event.character.zone)}"
        case c.CharacterRemoved():
            return f"{n(event.character)} leaves the encounter"
        case c.Placed():
            how = {"gm": "is placed in", "swept": "is swept into", "crossed": "crosses into"}[event.reason]
            return f"{n(event.character)} {how} {n(event.zone)}"
        case c.Engaged():
            return f"{n(event.a)} and {n(event.b)} are engaged"
        case c.Disengaged():
            return f"{n(event.a)} and {n(event.b)} are no longer engaged"
        case c.RoundStarted():
            return f"round {event.round}: setting the scene"
        case c.SceneSet():
            more = f" (foreshadowing: {event.foreshadow})" if event.foreshadow else ""
            return f"the scene: {event.text}{more}"
        case c.IntentOpened():
            return f"round {event.round}: announce your intent"
        case c.OrderSet():
            return f"the GM orders the actions: {listed(names, event.order)}"
        case c.TargetSet():
            return f"{n(event.action)} targets {n(event.target)}"
        case c.DifficultySet():
            return f"{n(event.action)} has difficulty {event.difficulty}"
        case c.StepTaken():
            return f"{n(event.character)} takes a step {_step(event.step, names)}"
        case c.ActionRolled():
            against = f" against {event.difficulty}" if event.difficulty is not None else ""
            penalty = f", penalty −{event.penalty}" if event.penalty else ""
            faces = "-".join(str(f) for f in event.dice.faces)
            sizes = "/".join(f"d{size}" for size in event.dice.sides)
            using = f" with {event.attribute} and {event.skill}" if event.attribute and event.skill else ""
            at = f", aimed at {n(event.target)}" if event.target is not None else ""
            return (
                f"{n(event.character)}'s {event.name} ({event.action_type}, {event.kind}){against}{using}{at}:"
                f" rolled {faces} on {sizes}{penalty}"
            )
        case c.ActionResolved():
            faces = "-".join(str(f) for f in event.faces)
            outcome = "" if event.success is None else (" — success" if event.success else " — failure")
            omens = f", {event.omens} omen(s)" if event.omens else ""
            return f"{n(event.action)}: {faces}, result {event.result}{omens}{outcome}"
        case c.ActionSkipped():
            if event.name is not None:
                return f"{n(event.character)} cannot perform {event.name}"
            kind = f" {event.action_type}" if event.action_type is not None else ""
            return f"{n(event.character)} cannot perform its face-down{kind} action"
        case c.ChangeAsked():
            to = event.to if event.to is not None else "another action"
            return f"{n(event.action)}: asks to change to {to}"
        case c.ChangeRuled():
            if not event.allow:
                return f"{n(event.action)}: the change is refused"
            return f"{n(event.action)}: the change is allowed, with a penalty of {event.penalty}"
        case c.Moved():
            to = n(event.path[-1]) if event.path else "nowhere"
            through = f" through {listed(names, event.path[:-1])}" if len(event.path) > 1 else ""
            return f"{n(event.character)} moves to {to}{through} ({event.cost} movement points)"
        case c.OmenTaken():
            grants = f", granting {event.grants}" if event.grants else ""
            return f"{n(event.character)} takes the omen {event.omen}{grants}"
        case c.PhaseChanged():
            return f"phase: {event.phase}"
        case c.EnvironmentalActed():
            return f"environment: {event.text}"
        case c.RoundEnded():
            return f"round {event.round} ends"
        case _:
            assert_never(event)
