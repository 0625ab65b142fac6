"""Human-readable lines for an encounter's events and sealed intents (notices, replays)."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import contingency as c
from server.engine.names import NO_NAMES, Names


def _zones(names: list[str]) -> str:
    return ", ".join(names)


def describe(event: c.Event | c.Intent | c.FaceDownIntent, names: Names = NO_NAMES) -> str:
    match event:
        case c.Intent():
            said = f" — “{event.note}”" if event.note else ""
            return (", ".join(event.actions) or "no action") + said
        case c.FaceDownIntent():
            return "face down: " + (", ".join(event.types) or "no action")
        case c.ZoneAdded():
            return f"zone {event.zone.name} appears"
        case c.ZoneRemoved():
            return f"zone {event.zone} is gone"
        case c.ZoneSplit():
            return f"zone {event.zone} splits into {_zones([p.name for p in event.into])}"
        case c.ZonesMerged():
            return f"zones {_zones(event.zones)} merge into {event.into.name}"
        case c.TraitAdded():
            return f"{event.zone} is now {event.trait}"
        case c.TraitRemoved():
            return f"{event.zone} is no longer {event.trait}"
        case c.ModifierSet():
            forced = f", sweeping into {event.forced_to}" if event.forced_to else ""
            return f"{event.zone} costs +{event.modifier} movement{forced}"
        case c.Connected():
            barrier = event.connection.barrier
            across = f" across a barrier ({barrier.action}, {barrier.difficulty})" if barrier else ""
            return f"{event.connection.a} and {event.connection.b} connect{across}"
        case c.Disconnected():
            return f"{event.a} and {event.b} no longer connect"
        case c.BarrierSet():
            if event.barrier is None:
                return f"the barrier between {event.a} and {event.b} is gone"
            return f"between {event.a} and {event.b}: {event.barrier.action} ({event.barrier.difficulty})"
        case c.CharacterAdded():
            return f"{event.character.name} joins in {event.character.zone}"
        case c.CharacterRemoved():
            return f"{event.character} leaves the encounter"
        case c.Placed():
            how = {"gm": "is placed in", "swept": "is swept into", "crossed": "crosses into"}[event.reason]
            return f"{event.character} {how} {event.zone}"
        case c.Engaged():
            return f"{event.a} and {event.b} are engaged"
        case c.Disengaged():
            return f"{event.a} and {event.b} are no longer engaged"
        case c.RoundStarted():
            return f"round {event.round}: setting the scene"
        case c.SceneSet():
            more = f" (foreshadowing: {event.foreshadow})" if event.foreshadow else ""
            return f"the scene: {event.text}{more}"
        case c.IntentOpened():
            return f"round {event.round}: announce your intent"
        case c.OrderSet():
            return f"the GM orders the actions: {', '.join(event.order)}"
        case c.TargetSet():
            return f"{event.action} targets {event.target}"
        case c.DifficultySet():
            return f"{event.action} has difficulty {event.difficulty}"
        case c.StepTaken():
            where = event.step.zone or event.step.engage or event.step.reach
            return f"{event.character} takes a step to {where}"
        case c.ActionRolled():
            against = f" against {event.difficulty}" if event.difficulty is not None else ""
            penalty = f", penalty −{event.penalty}" if event.penalty else ""
            faces = "-".join(str(f) for f in event.dice.faces)
            sizes = "/".join(f"d{n}" for n in event.dice.sides)
            using = f" with {event.attribute} and {event.skill}" if event.attribute and event.skill else ""
            return (
                f"{event.character}: {event.name} ({event.action_type}, {event.kind}){against}{using}:"
                f" rolled {faces} on {sizes}{penalty}"
            )
        case c.ActionResolved():
            faces = "-".join(str(f) for f in event.faces)
            outcome = "" if event.success is None else (" — success" if event.success else " — failure")
            omens = f", {event.omens} omen(s)" if event.omens else ""
            return f"{event.action}: {faces}, result {event.result}{omens}{outcome}"
        case c.ActionSkipped():
            if event.name is not None:
                return f"{event.character} cannot perform {event.name}"
            kind = f" {event.action_type}" if event.action_type is not None else ""
            return f"{event.character} cannot perform its face-down{kind} action"
        case c.ChangeAsked():
            to = event.to if event.to is not None else "another action"
            return f"{event.action}: asks to change to {to}"
        case c.ChangeRuled():
            if not event.allow:
                return f"{event.action}: the change is refused"
            return f"{event.action}: changed, with a penalty of {event.penalty}"
        case c.Moved():
            return f"{event.character} moves through {_zones(event.path)} ({event.cost} movement points)"
        case c.OmenTaken():
            grants = f", granting {event.grants}" if event.grants else ""
            return f"{event.character} takes the omen {event.omen}{grants}"
        case c.PhaseChanged():
            return f"phase: {event.phase}"
        case c.EnvironmentalActed():
            return f"environment: {event.text}"
        case c.RoundEnded():
            return f"round {event.round} ends"
        case _:
            assert_never(event)
