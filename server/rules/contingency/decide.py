"""``decide`` for a Contingency encounter: validate a command against the state, return the events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import contingency as c
from server.engine.ruleset import Context
from server.rules.contingency import codes, limits, lookup, skill
from server.rules.contingency import zones as z
from server.rules.contingency.evolve import evolve
from server.rules.contingency.landscape import LandscapeCommand, check_engagement, decide_landscape
from server.rules.contingency.lookup import action_called, zone_called
from server.rules.contingency.order import next_action, pending, queue
from server.rules.contingency.state import ContingencyState, Fighter, Planned, skill_key

LANDSCAPE = get_args(LandscapeCommand)


def decide(state: ContingencyState, command: c.Command, ctx: Context) -> Sequence[c.Event]:
    if isinstance(command, LANDSCAPE):
        return decide_landscape(state, command, ctx)
    match command:
        case c.SetScene():
            _gm(ctx, "set the scene")
            return [c.SceneSet(text=command.text, foreshadow=command.foreshadow)]
        case c.OpenIntent():
            _gm(ctx, "call for intent")
            _phase(state, "scene")
            if not state.fighters:
                raise Refused(codes.NO_SUCH_CHARACTER, "nobody is in the encounter to announce intent")
            return [c.IntentOpened(round=state.round, expected=list(state.fighters))]
        case c.Reorder():
            _gm(ctx, "reorder the actions")
            _phase(state, "resolving")
            waiting = sorted(p.id for p in pending(state))
            if sorted(command.order) != waiting:
                raise Refused(codes.BAD_ORDER, f"order: list exactly the actions still to resolve, {waiting}")
            return [c.OrderSet(order=list(command.order))]
        case c.SetTarget():
            planned = _planned(state, command.action)
            _may_act(ctx, planned.character)
            return [c.TargetSet(action=planned.id, target=lookup.target(state, command.target, "target"))]
        case c.SetDifficulty():
            _gm(ctx, "set a difficulty")
            planned = _planned(state, command.action)
            _difficulty(command.difficulty, "difficulty")
            return [c.DifficultySet(action=planned.id, difficulty=command.difficulty)]
        case c.Roll():
            return _roll(state, command, ctx)
        case c.Perform():
            return _perform(state, command, ctx)
        case c.TakePenalty():
            rolling = state.rolling
            if rolling is None:
                raise Refused(codes.NOTHING_ROLLED, "no rolled action is waiting for its penalty")
            _may_act(ctx, rolling.character)
            problem = skill.valid(rolling.faces, rolling.penalty, command.reductions)
            if problem is not None:
                raise Refused(codes.BAD_REDUCTIONS, f"reductions: {problem}")
            return _resolve(state, list(command.reductions))
        case c.Skip():
            planned = _planned(state, command.action)
            _may_act(ctx, planned.character)
            _idle(state)
            skipped = c.ActionSkipped(
                action=planned.id, character=planned.character, name=planned.name, action_type=planned.type
            )
            return _then_environment(state, [skipped])
        case c.ChangeAction():
            planned = _planned(state, command.action)
            _may_act(ctx, planned.character)
            if planned.asked is not None:
                raise Refused(
                    codes.CHANGE_PENDING, f"action: a change of {action_called(state, planned.id)} waits for the GM"
                )
            _card(state, planned.character, command.to, "to")
            if command.to == planned.name:
                raise Refused(codes.BAD_INTENT, f"to: {action_called(state, planned.id)} is already that action")
            others = [p.name for p in state.actions.values() if p.character == planned.character and p.id != planned.id]
            _not_repeated(state, [*others, command.to], "to")
            return [c.ChangeAsked(action=planned.id, to=command.to, action_type=state.catalogue[command.to].type)]
        case c.RuleOnChange():
            _gm(ctx, "rule on a change")
            planned = _planned(state, command.action)
            if planned.asked is None:
                raise Refused(
                    codes.NO_CHANGE_ASKED, f"action: nobody asked to change {action_called(state, planned.id)}"
                )
            if not 0 <= command.penalty <= 100:
                raise Refused(codes.BAD_PENALTY, f"penalty: {command.penalty} is not 0 to 100 points")
            penalty = command.penalty if command.allow else 0
            return [c.ChangeRuled(action=planned.id, allow=command.allow, penalty=penalty)]
        case c.Move():
            return [_move(state, command, ctx)]
        case c.TakeOmen():
            fighter = _fighter(state, command.character, "character")
            _may_act(ctx, fighter.id)
            if fighter.omens < 1:
                raise Refused(codes.NO_OMEN, f"character: {fighter.name} has no omen to take")
            if command.omen in fighter.omens_taken and not command.repeatable:
                raise Refused(codes.OMEN_TAKEN, f"omen: {command.omen} was taken in this action and is not Repeatable")
            if command.grants is not None:
                _card(state, fighter.id, command.grants, "grants")
            return [
                c.OmenTaken(
                    character=fighter.id, omen=command.omen, repeatable=command.repeatable, grants=command.grants
                )
            ]
        case c.Environmental():
            _gm(ctx, "take an environmental action")
            out: list[c.Event] = []
            if state.phase == "resolving" and state.rolling is None and not queue(state):
                out.append(c.PhaseChanged(phase="environment"))
            elif state.phase != "environment":
                raise Refused(codes.OUT_OF_PHASE, "environmental actions come once every action is resolved")
            limits.check_environmental(state)
            return [*out, c.EnvironmentalActed(text=command.text)]
        case c.EndRound():
            _gm(ctx, "end the round")
            if state.phase not in ("resolving", "environment"):
                raise Refused(codes.OUT_OF_PHASE, "a round ends after its actions are resolved")
            _idle(state)
            return [*_swept(state), c.RoundEnded(round=state.round), c.RoundStarted(round=state.round + 1)]
        case _:
            raise AssertionError(f"{type(command).__name__} is a landscape command")


def check_declaration(state: ContingencyState, participant: str, payload: c.Intent, ctx: Context) -> None:
    """An intent names actions of the character's cards, no action twice unless it may be repeated."""
    if len(payload.actions) > limits.MAX_INTENT:
        raise Refused(codes.BAD_INTENT, f"actions: at most {limits.MAX_INTENT} actions a round")
    for i, name in enumerate(payload.actions):
        _card(state, participant, name, f"actions[{i}]")
    _not_repeated(state, payload.actions, "actions")


# --- resolving ------------------------------------------------------------------------------------------


def _roll(state: ContingencyState, command: c.Roll, ctx: Context) -> list[c.Event]:
    _phase(state, "resolving")
    _idle(state)
    upcoming = next_action(state)
    if command.action is None:
        if upcoming is None:
            raise Refused(codes.NO_SUCH_ACTION, "every announced action is resolved")
        planned = upcoming
    else:
        planned = _planned(state, command.action)
        if planned.type == "Triggered":
            raise Refused(
                codes.TRIGGERED_ONLY, f"action: {action_called(state, planned.id)} is performed when its trigger is met"
            )
        if (upcoming is None or planned.id != upcoming.id) and not ctx.is_gm:
            raise Refused(codes.OUT_OF_TURN, f"action: {action_called(state, planned.id)} is not next to resolve")
    _may_act(ctx, planned.character)
    _faces_allowed(state, ctx, command.faces)
    fighter = state.fighters[planned.character]
    if planned.name in fighter.performed and not _repeatable(state, planned.name):
        raise Refused(codes.REPEATED_ACTION, f"action: {fighter.name} already performed {planned.name} this round")
    out: list[c.Event] = []
    here = fighter.zone  # where the action resolves: after its step
    if command.step is not None:
        stepped = _step(state, fighter, planned, command.step)
        out.append(stepped)
        here = stepped.step.zone or here
    difficulty = planned.difficulty
    barrier = _barrier_crossed(state, here, planned)
    if difficulty is None and barrier is not None:
        difficulty = barrier.difficulty
    attribute, skill_name, sides = _dice_for(fighter, state.catalogue.get(planned.name), command)
    dice = ctx.dice.roll(sides, command.faces)
    rolled = c.ActionRolled(
        action=planned.id,
        character=fighter.id,
        name=planned.name,
        action_type=planned.type,
        kind="announced",
        target=planned.target,
        difficulty=difficulty,
        penalty=skill.penalty_for(fighter.taken) + planned.change_penalty,
        dice=dice,
        attribute=attribute,
        skill=skill_name,
    )
    out.append(rolled)
    return _settle_roll(state, out)


def _perform(state: ContingencyState, command: c.Perform, ctx: Context) -> list[c.Event]:
    if state.phase not in ("resolving", "environment"):
        raise Refused(codes.OUT_OF_PHASE, "actions are performed while resolving and in the environmental phase")
    _idle(state)
    fighter = _fighter(state, command.character, "character")
    _may_act(ctx, fighter.id)
    _faces_allowed(state, ctx, command.faces)
    action = _card(state, fighter.id, command.action, "action")
    if command.difficulty is not None:
        if not ctx.is_gm:
            raise Refused(codes.GM_SETS_DIFFICULTY, "difficulty: the GM sets the difficulty")
        _difficulty(command.difficulty, "difficulty")
    target = None if command.target is None else lookup.target(state, command.target, "target")
    if command.kind == "triggered":
        if action.type != "Triggered":
            raise Refused(codes.NOT_TRIGGERED, f"action: {action.name} is a {action.type} action, not Triggered")
        if action.name in fighter.performed and not action.repeatable:
            raise Refused(codes.REPEATED_ACTION, f"action: {fighter.name} already performed {action.name} this round")
        announced = next(
            (
                p
                for p in state.actions.values()
                if p.character == fighter.id and p.name == action.name and p.status == "planned"
            ),
            None,
        )
        if announced is None:
            limits.check_performed(state, fighter.id)
        action_id = announced.id if announced is not None else f"{fighter.id}.t{_count(state, fighter.id)}"
        penalty = skill.penalty_for(fighter.taken) + (announced.change_penalty if announced else 0)
    else:
        if fighter.last is None:
            raise Refused(codes.NO_ACTION_YET, f"character: {fighter.name} has no action for an Instant action to join")
        if not action.instant and action.name not in fighter.granted:
            raise Refused(codes.NOT_INSTANT, f"action: {action.name} is not Instant and no omen taken grants it")
        limits.check_performed(state, fighter.id)
        action_id = f"{fighter.id}.i{_count(state, fighter.id)}"
        penalty = skill.penalty_for(max(fighter.taken - 1, 0))  # part of the action it follows
    attribute, skill_name, sides = _dice_for(fighter, action, command)
    dice = ctx.dice.roll(sides, command.faces)
    rolled = c.ActionRolled(
        action=action_id,
        character=fighter.id,
        name=action.name,
        action_type=action.type,
        kind=command.kind,
        target=target,
        difficulty=command.difficulty,
        penalty=penalty,
        dice=dice,
        attribute=attribute,
        skill=skill_name,
    )
    return _settle_roll(state, [rolled])


def _dice_for(
    fighter: Fighter, action: c.ActionDef | None, command: c.Roll | c.Perform
) -> tuple[str | None, str | None, list[int]]:
    """The attribute and skill a roll is made with, and the sizes of its three dice: those the roll names,
    else the action's own; the character's default dice when neither names any, or when the action's own
    are not on the character's sheet (a roll that names some the sheet lacks is refused)."""
    named = command.attribute is not None or command.skill is not None
    attribute = command.attribute or (action.attribute if action else None)
    skill_name = command.skill or (action.skill if action else None)
    if attribute is not None and skill_name is not None:
        sides = fighter.skills.get(skill_key(attribute, skill_name))
        if sides is not None:
            return attribute, skill_name, sides
    if named:
        raise Refused(
            codes.NO_SUCH_SKILL,
            f"skill: {fighter.name} has no dice for {attribute or '?'} with {skill_name or '?'}",
        )
    return None, None, fighter.dice


def _count(state: ContingencyState, character: str) -> int:
    return 1 + sum(1 for p in state.actions.values() if p.character == character)


def _settle_roll(state: ContingencyState, events: list[c.Event]) -> list[c.Event]:
    """The roll's events, resolved at once when the player has no choice of how to take the penalty."""
    after = state
    for event in events:
        after = evolve(after, event)
    rolling = after.rolling
    assert rolling is not None
    reductions = skill.forced(rolling.faces, rolling.penalty)
    if reductions is None:
        return events
    return [*events, *_resolve(after, reductions)]


def _resolve(state: ContingencyState, reductions: list[int]) -> list[c.Event]:
    rolling = state.rolling
    assert rolling is not None
    planned = state.actions[rolling.action]
    faces = skill.apply(rolling.faces, reductions)
    result = skill.result(faces)
    success = None if planned.difficulty is None else result >= planned.difficulty
    resolved = c.ActionResolved(
        action=planned.id,
        character=planned.character,
        reductions=reductions,
        faces=faces,
        result=result,
        omens=skill.omens(faces, state.omen_at, state.omen_rule),
        success=success,
    )
    out: list[c.Event] = [resolved]
    if success:
        out += _crossing(state, planned)
    return _then_environment(state, out)


def _then_environment(state: ContingencyState, events: list[c.Event]) -> list[c.Event]:
    """When the last announced action is resolved, the round moves on to the environmental actions."""
    if state.phase != "resolving":
        return events
    after = state
    for event in events:
        after = evolve(after, event)
    if not queue(after):
        return [*events, c.PhaseChanged(phase="environment")]
    return events


# --- barriers and movement -------------------------------------------------------------------------------


def _barrier_crossed(state: ContingencyState, here: str, planned: Planned) -> c.Barrier | None:
    """The barrier this action is aimed across: its target is an adjacent zone behind a barrier that
    this very action crosses (or opens)."""
    if planned.target is None or planned.target not in state.zones:
        return None
    link = z.between(state.connections, here, planned.target)
    if link is None or link.barrier is None or link.barrier.action != planned.name:
        return None
    return link.barrier


def _crossing(state: ContingencyState, planned: Planned) -> list[c.Event]:
    """A successful barrier action: a movement action crosses it, any other opens it."""
    fighter = state.fighters[planned.character]
    barrier = _barrier_crossed(state, fighter.zone, planned)
    if barrier is None or planned.target is None:
        return []
    if planned.type == "Movement":
        return [c.Placed(character=fighter.id, zone=planned.target, reason="crossed")]
    return [c.BarrierSet(a=fighter.zone, b=planned.target, barrier=None)]


def _step(state: ContingencyState, fighter: Fighter, planned: Planned, step: c.Step) -> c.StepTaken:
    """Taking a step with an action: never while engaged, once a round, never across a barrier."""
    chosen = [x for x in (step.zone, step.engage, step.reach) if x is not None]
    if len(chosen) != 1:
        raise Refused(codes.BAD_STEP, "step: name exactly one of zone, engage or reach")
    if state.engaged_with(fighter.id):
        raise Refused(codes.ENGAGED, f"step: {fighter.name} is engaged and cannot take a step")
    if fighter.stepped:
        raise Refused(codes.ONE_STEP, f"step: {fighter.name} has taken a step this round")
    here = zone_called(state, fighter.zone)
    if step.zone is not None:
        zone = lookup.zone(state, step.zone, "step.zone")
        link = z.between(state.connections, fighter.zone, zone)
        if link is None:
            raise Refused(codes.NOT_ADJACENT, f"step.zone: {zone_called(state, zone)} is not adjacent to {here}")
        if link.barrier is not None:
            raise Refused(
                codes.BARRIER,
                f"step.zone: a barrier stands between {here} and {zone_called(state, zone)}: "
                f"it takes {link.barrier.action}",
            )
        step = step if zone == step.zone else c.Step(zone=zone)
    elif step.engage is not None:
        other = lookup.character(state, step.engage, "step.engage")
        check_engagement(state, fighter.id, other)
        step = step if other == step.engage else c.Step(engage=other)
    elif step.reach is not None:
        thing = lookup.thing_in(state, step.reach, fighter.zone, "step.reach", codes.NOT_IN_ZONE)
        step = step if thing == step.reach else c.Step(reach=thing)
    return c.StepTaken(character=fighter.id, action=planned.id, step=step)


def _move(state: ContingencyState, command: c.Move, ctx: Context) -> c.Moved:
    fighter = _fighter(state, command.character, "character")
    _may_act(ctx, fighter.id)
    _idle(state)
    if fighter.mp is None:
        raise Refused(codes.NO_MOVEMENT_POINTS, f"character: {fighter.name} has not repositioned this round")
    if not command.path:
        raise Refused(codes.BAD_STEP, "path: name the zones to move through")
    here = fighter.zone
    path: list[str] = []
    for i, typed in enumerate(command.path):
        zone = lookup.zone(state, typed, f"path[{i}]")
        link = z.between(state.connections, here, zone)
        there, came = zone_called(state, zone), zone_called(state, here)
        if link is None:
            raise Refused(codes.NOT_ADJACENT, f"path[{i}]: {there} is not adjacent to {came}")
        if link.barrier is not None:
            raise Refused(
                codes.BARRIER, f"path[{i}]: a barrier stands between {came} and {there}: it needs its own roll"
            )
        path.append(zone)
        here = zone
    cost = z.path_cost(state.zones, fighter.zone, path)
    if cost > fighter.mp:
        raise Refused(
            codes.NOT_ENOUGH_MOVEMENT_POINTS, f"path: costs {cost} movement points, {fighter.name} has {fighter.mp}"
        )
    return c.Moved(character=fighter.id, path=path, cost=cost)


def _swept(state: ContingencyState) -> list[c.Event]:
    """Forced movement: who stands in such a zone and took no movement action is swept along."""
    out: list[c.Event] = []
    for fighter in state.fighters.values():
        target = state.zones[fighter.zone].forced_to
        if target is not None and target in state.zones and not fighter.moved:
            out.append(c.Placed(character=fighter.id, zone=target, reason="swept"))
    return out


# --- small checks ---------------------------------------------------------------------------------------


def _gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def _phase(state: ContingencyState, phase: str) -> None:
    if state.phase != phase:
        raise Refused(codes.OUT_OF_PHASE, f"the round is in its {state.phase} phase, not {phase}")


def _idle(state: ContingencyState) -> None:
    if state.rolling is not None:
        raise Refused(
            codes.AWAITING_PENALTY,
            f"{action_called(state, state.rolling.action)} waits for its player to take the penalty",
        )


def _may_act(ctx: Context, character: str) -> None:
    if not (ctx.is_gm or ctx.may_act_for(character)):
        raise Refused(codes.NOT_YOUR_CHARACTER, f"character: you do not control {character!r}")


def _faces_allowed(state: ContingencyState, ctx: Context, faces: list[int] | None) -> None:
    if ctx.dice.mode == "physical" and not ctx.is_gm and not state.players_type_faces:
        raise Refused(codes.TYPED_BY_GM, "faces: with physical dice the GM types in the faces rolled at the table")


def _fighter(state: ContingencyState, character: str, field: str) -> Fighter:
    """The character a command names by its id or its name."""
    return state.fighters[lookup.character(state, character, field)]


def _planned(state: ContingencyState, action: str) -> Planned:
    planned = state.actions.get(action)
    if planned is None or planned.character not in state.fighters:
        raise Refused(codes.NO_SUCH_ACTION, f"action: no action {action!r} this round")
    if planned.status != "planned":
        raise Refused(codes.NOT_PLANNED, f"action: {action_called(state, action)} is already {planned.status}")
    return planned


def _card(state: ContingencyState, character: str, name: str, field: str) -> c.ActionDef:
    """An action among the character's action cards. A name that is not one is refused the same way whether
    the table has it or not: whose hand holds which card is no player's business."""
    if name not in state.deck(character):
        who = state.fighters[character].name if character in state.fighters else character
        raise Refused(codes.UNKNOWN_ACTION, f"{field}: {name!r} is not one of {who}'s action cards")
    return state.catalogue[name]


def _repeatable(state: ContingencyState, name: str) -> bool:
    action = state.catalogue.get(name)
    return action is not None and (action.repeatable or action.instant)


def _not_repeated(state: ContingencyState, names: Sequence[str], field: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen and not _repeatable(state, name):
            raise Refused(
                codes.REPEATED_ACTION, f"{field}: {name} twice in a round (it is neither Instant nor Repeatable)"
            )
        seen.add(name)


def _difficulty(value: int, field: str) -> None:
    if not 1 <= value <= 100:
        raise Refused(codes.BAD_DIFFICULTY, f"{field}: {value} is not 1 to 100")
