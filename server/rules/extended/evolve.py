"""``evolve`` for the extended contest: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.common import QuestRoll, QuestRollKind, RolledSide
from protocol.events import Revealed
from protocol.rulesets import extended as x
from server.rules.extended.offer import with_waiting
from server.rules.extended.state import ExtendedState, Fighter, Rolled
from server.rules.questworlds.chart import chart_after
from server.rules.questworlds.last_roll import exchange_roll, simple_roll

replace = msgspec.structs.replace


def evolve(state: ExtendedState, event: x.Event | Revealed) -> ExtendedState:
    return chart_after(state, _evolve(state, event), applied=type(event) is x.ExchangeApplied)


def _evolve(state: ExtendedState, event: x.Event | Revealed) -> ExtendedState:
    return BY_EVENT[type(event)](state, event)


def _round_started(state: ExtendedState, event: x.RoundStarted) -> ExtendedState:
    return replace(
        state,
        round=event.round,
        phase="declaring",
        order=list(event.order),
        base_order=list(event.order),
        acted=[],
        delayed=[],
        current=None,
        targets_left=[],
        order_mode=None,
        ordered=False,
        daring={},
        changes_allowed=[],
        intents={},
        proposals={},
        exchange=None,
        open_shots={},
        shooter=None,
        shot_target=None,
        shot_intent=None,
    )


def _revealed(state: ExtendedState, event: Revealed) -> ExtendedState:
    intents = {p: x.Intent() for p in state.order}
    intents.update(
        {
            e.participant: e.payload
            for e in event.entries
            if e.participant in intents and isinstance(e.payload, x.Intent)
        }
    )
    return replace(state, intents=intents, phase="ready", fighters=_switch(state, intents))


def _order_set(state: ExtendedState, event: x.OrderSet) -> ExtendedState:
    return replace(state, order=list(event.order), base_order=list(event.order), order_mode=event.mode, ordered=True)


def _daring_ranked(state: ExtendedState, event: x.DaringRanked) -> ExtendedState:
    return replace(state, daring={**state.daring, event.contestant: event.daring})


def _delayed(state: ExtendedState, event: x.Delayed) -> ExtendedState:
    order = [c for c in state.order if c != event.contestant] + [event.contestant]
    return replace(state, order=order, delayed=[*state.delayed, event.contestant])


def _jumped_in(state: ExtendedState, event: x.JumpedIn) -> ExtendedState:
    rest = [c for c in state.order if c != event.contestant]
    at = next((i for i, c in enumerate(rest) if state.waiting(c)), len(rest))
    order = [*rest[:at], event.contestant, *rest[at:]]
    return replace(state, order=order, delayed=[c for c in state.delayed if c != event.contestant])


def _change_allowed(state: ExtendedState, event: x.ChangeAllowed) -> ExtendedState:
    return replace(state, changes_allowed=[*state.changes_allowed, event.contestant])


def _intent_changed(state: ExtendedState, event: x.IntentChanged) -> ExtendedState:
    intents = {**state.intents, event.contestant: event.intent}
    allowed = [c for c in state.changes_allowed if c != event.contestant]
    return replace(
        state,
        intents=intents,
        changes_allowed=allowed,
        fighters=_switch(state, {event.contestant: event.intent}),
    )


def _turn_passed(state: ExtendedState, event: x.TurnPassed) -> ExtendedState:
    return _turn_over(replace(state, open_shots={}), event.contestant)


def _bid_proposed(state: ExtendedState, event: x.BidProposed) -> ExtendedState:
    return replace(state, proposals={**state.proposals, event.contestant: event.bid})


def _bid_accepted(state: ExtendedState, event: x.BidAccepted) -> ExtendedState:
    intent = replace(state.intent(event.contestant), bid=event.bid)
    proposals = {c: b for c, b in state.proposals.items() if c != event.contestant}
    return replace(state, intents={**state.intents, event.contestant: intent}, proposals=proposals)


def _parting_shot_taken(state: ExtendedState, event: x.PartingShotTaken) -> ExtendedState:
    target = event.target if event.target is not None else state.open_shots.get(event.contestant)
    shots = {v: d for v, d in state.open_shots.items() if v != event.contestant}
    return replace(
        state,
        phase="ready",
        proposals={},
        open_shots=shots,
        shooter=event.contestant,
        shot_target=target,
        shot_intent=event.intent,
        fighters=_switch(state, {event.contestant: event.intent}),
    )


def _parting_shot_declined(state: ExtendedState, event: x.PartingShotDeclined) -> ExtendedState:
    return replace(state, open_shots={v: d for v, d in state.open_shots.items() if v != event.contestant})


def _exchange_rolled(state: ExtendedState, event: x.ExchangeRolled) -> ExtendedState:
    rolled = replace(state, phase="rolled", exchange=_rolled(state, event))
    if event.parting_shot:
        return rolled
    targets = state.targets(event.actor)
    left = targets[targets.index(event.defender) :] if event.defender in targets else [event.defender]
    return replace(rolled, current=event.actor, targets_left=left, open_shots={})


def _hero_point_spent(state: ExtendedState, event: x.HeroPointSpent) -> ExtendedState:
    return _hero_point(state, event.contestant, event.level)


def _hero_point_passed(state: ExtendedState, event: x.HeroPointPassed) -> ExtendedState:
    return _hero_point(state, event.contestant, None)


def _exchange_applied(state: ExtendedState, event: x.ExchangeApplied) -> ExtendedState:
    return _applied(state, event)


def _ap_adjusted(state: ExtendedState, event: x.ApAdjusted) -> ExtendedState:
    fighter = _moved(state.fighters[event.contestant], event.delta)
    return replace(state, fighters={**state.fighters, event.contestant: fighter})


def _contest_decided(state: ExtendedState, event: x.ContestDecided) -> ExtendedState:
    # a rolled exchange the decision cut short is void: resumed, its actor rolls again
    resume = "ready" if state.phase == "rolled" else state.phase if state.phase != "decided" else state.resume_phase
    return replace(state, phase="decided", outcome=event, exchange=None, resume_phase=resume)


def _contest_resumed(state: ExtendedState, event: x.ContestResumed) -> ExtendedState:
    return replace(state, outcome=None, phase=state.resume_phase or "ready", resume_phase=None)


def _final_action_taken(state: ExtendedState, event: x.FinalActionTaken) -> ExtendedState:
    fighter = state.fighters[event.contestant]
    fighter = replace(
        _moved(fighter, event.ap - fighter.ap),
        hero_points=fighter.hero_points - 1,
        final_action_used=True,
    )
    back = fighter.in_contest and event.contestant not in state.order
    order = [*state.order, event.contestant] if back else state.order
    dice = _simple(state, "final_action", (event.contestant, None), event.roll)
    return replace(state, fighters={**state.fighters, event.contestant: fighter}, order=order, last_roll=dice)


def _disengage_rolled(state: ExtendedState, event: x.DisengageRolled) -> ExtendedState:
    fighters = dict(state.fighters)
    fighters[event.contestant] = replace(
        _moved(fighters[event.contestant], -event.transferred), withdrawn=event.withdrawn
    )
    fighters[event.opponent] = _moved(fighters[event.opponent], event.transferred)
    dice = _simple(state, "disengage", (event.contestant, event.opponent), event.roll)
    return _turn_over(replace(state, fighters=fighters, open_shots={}, last_roll=dice), event.contestant)


def _rejoined(state: ExtendedState, event: x.Rejoined) -> ExtendedState:
    # back in at once; while the round's intents are sealed it declares with the others (the window
    # expects it), after the reveal it acts from the next round: it declared nothing for this one
    fighter = replace(state.fighters[event.contestant], withdrawn=False)
    joins = state.phase == "declaring" and event.contestant not in state.order
    order = [*state.order, event.contestant] if joins else state.order
    return replace(state, fighters={**state.fighters, event.contestant: fighter}, order=order)


def _loan_resolved(state: ExtendedState, event: x.LoanResolved) -> ExtendedState:
    fighters = dict(state.fighters)
    fighters[event.lender] = _moved(fighters[event.lender], -event.lender_loses)
    fighters[event.target] = _moved(fighters[event.target], event.target_gains)
    dice = _simple(state, "loan", (event.lender, None), event.roll)
    return _turn_over(replace(state, fighters=fighters, open_shots={}, last_roll=dice), event.lender)


def _gift_resolved(state: ExtendedState, event: x.GiftResolved) -> ExtendedState:
    fighters = dict(state.fighters)
    fighters[event.recipient] = _moved(fighters[event.recipient], event.recipient_gains)
    fighters[event.opponent] = _moved(fighters[event.opponent], event.opponent_gains)
    giver = event.giver if event.giver in state.fighters else None
    dice = _simple(state, "gift", (giver, None), event.roll, outsider=event.giver)
    return replace(state, fighters=fighters, last_roll=dice)


def _hero_points_granted(state: ExtendedState, event: x.HeroPointsGranted) -> ExtendedState:
    if event.contestant is None or event.points is None:
        return state  # only a viewer's redacted copy names no one; the log's event always does
    fighter = state.fighters[event.contestant]
    fighter = replace(fighter, hero_points=fighter.hero_points + event.points)
    return replace(state, fighters={**state.fighters, event.contestant: fighter})


# Each event's own class picks its fold: a class pattern that fails costs about a thousand instructions
# (msgspec's metaclass makes ``isinstance`` call ``__instancecheck__``), and events are final classes.
BY_EVENT: dict[type, Callable[[ExtendedState, Any], ExtendedState]] = {
    x.RoundStarted: _round_started,
    Revealed: _revealed,
    x.OrderSet: _order_set,
    x.DaringRanked: _daring_ranked,
    x.Delayed: _delayed,
    x.JumpedIn: _jumped_in,
    x.ChangeAllowed: _change_allowed,
    x.IntentChanged: _intent_changed,
    x.TurnPassed: _turn_passed,
    x.BidProposed: _bid_proposed,
    x.BidAccepted: _bid_accepted,
    x.PartingShotTaken: _parting_shot_taken,
    x.PartingShotDeclined: _parting_shot_declined,
    x.ExchangeRolled: _exchange_rolled,
    x.HeroPointSpent: _hero_point_spent,
    x.HeroPointPassed: _hero_point_passed,
    x.ExchangeApplied: _exchange_applied,
    x.ApAdjusted: _ap_adjusted,
    x.ContestDecided: _contest_decided,
    x.ContestResumed: _contest_resumed,
    x.FinalActionTaken: _final_action_taken,
    x.DisengageRolled: _disengage_rolled,
    x.Rejoined: _rejoined,
    x.LoanResolved: _loan_resolved,
    x.GiftResolved: _gift_resolved,
    x.HeroPointsGranted: _hero_points_granted,
}


def _moved(fighter: Fighter, delta: int) -> Fighter:
    return replace(fighter, ap=fighter.ap + delta, ap_known=fighter.ap_known or delta != 0)


def _turn_over(state: ExtendedState, contestant: str) -> ExtendedState:
    acted = state.acted if contestant in state.acted else [*state.acted, contestant]
    current = None if state.current == contestant else state.current
    return replace(state, acted=acted, current=current, targets_left=[] if current is None else state.targets_left)


def _applied(state: ExtendedState, event: x.ExchangeApplied) -> ExtendedState:
    exchange = state.exchange
    assert exchange is not None
    fighters = dict(state.fighters)
    if event.loser is not None and event.lost:
        fighters[event.loser] = _moved(fighters[event.loser], -event.lost)
    if event.winner is not None and event.gained:
        fighters[event.winner] = _moved(fighters[event.winner], event.gained)
    if event.both_lost:
        for contestant in (exchange.actor, exchange.defender):
            fighters[contestant] = _moved(fighters[contestant], -event.both_lost)
    shots = dict(state.open_shots)
    if exchange.kind != "unrelated" and exchange.defender:
        actor, defender = exchange.actor, exchange.defender
        fighters[actor] = replace(fighters[actor], last_opponent=defender)
        fighters[defender] = replace(fighters[defender], last_opponent=actor)
        loser, winner = event.loser, event.winner
        decisive = loser is not None and winner is not None and not exchange.parting_shot
        if decisive and loser is not None and winner is not None and state.fighters[loser].ap > 0 >= fighters[loser].ap:
            shots[winner] = loser
    after = replace(
        state,
        fighters=fighters,
        phase="ready",
        exchange=None,
        exchanges=event.exchange,
        last=event,
        last_roll=_exchange_roll(state.last_roll, exchange, event),
        open_shots=shots,
        shooter=None,
        shot_target=None,
        shot_intent=None,
    )
    if exchange.parting_shot:
        return after
    left = [t for t in state.targets_left[1:] if fighters[t].in_contest]
    if left and fighters[exchange.actor].in_contest:
        return replace(after, targets_left=left)
    return _turn_over(after, exchange.actor)


def _exchange_roll(previous: QuestRoll | None, exchange: Rolled, event: x.ExchangeApplied) -> QuestRoll | None:
    actor = RolledSide(
        contestant=exchange.actor,
        face=exchange.actor_face,
        level=exchange.actor_level,
        hero_point=exchange.actor in exchange.spent,
    )
    defender = RolledSide(
        contestant=exchange.defender if exchange.resistance is None and exchange.defender else None,
        face=exchange.defender_face,
        level=exchange.defender_level,
        hero_point=exchange.defender in exchange.spent,
    )
    return exchange_roll(
        number=exchange.number,
        sides=(actor, defender),
        kind="parting_shot" if exchange.parting_shot else "exchange",
        winner=event.winner,
        result=event.result if exchange.kind == "unrelated" else "",
        previous=previous,
    )


def _simple(
    state: ExtendedState,
    kind: QuestRollKind,
    who: tuple[str | None, str | None],
    roll: x.SimpleRoll,
    outsider: str = "",
) -> QuestRoll:
    return simple_roll(
        kind=kind,
        exchange=state.exchanges,
        who=who,
        faces=roll.faces,
        levels=roll.levels,
        result=roll.result,
        outsider=outsider,
    )


def _switch(state: ExtendedState, intents: dict[str, x.Intent]) -> dict[str, Fighter]:
    """Switching ability changes what a contestant rolls with from now on; its AP stays."""
    fighters = dict(state.fighters)
    for contestant, intent in intents.items():
        if intent.ability is not None and intent.rating is not None:
            fighters[contestant] = replace(fighters[contestant], ability=intent.ability, rating=intent.rating)
    return fighters


def _rolled(state: ExtendedState, event: x.ExchangeRolled) -> Rolled:
    rolled = Rolled(
        number=event.exchange,
        actor=event.actor,
        defender=event.defender,
        bid=event.bid,
        kind=event.kind,
        parting_shot=event.parting_shot,
        actor_face=event.actor_face,
        defender_face=event.defender_face,
        actor_level=event.actor_level,
        defender_level=event.defender_level,
        actor_value=event.actor_value,
        defender_value=event.defender_value,
        eligible=[],
        resistance=event.resistance,
    )
    return with_waiting(state, rolled)


def _hero_point(state: ExtendedState, contestant: str, level: str | None) -> ExtendedState:
    exchange = state.exchange
    if exchange is None:
        return state
    fighters = state.fighters
    changes: dict[str, object] = {}
    if level is None:
        changes["passed"] = [*exchange.passed, contestant]
    else:
        changes["spent"] = [*exchange.spent, contestant]
        changes["actor_level" if contestant == exchange.actor else "defender_level"] = level
        fighter = fighters[contestant]
        fighters = {**fighters, contestant: replace(fighter, hero_points=fighter.hero_points - 1)}
    after = replace(state, fighters=fighters)
    exchange = replace(exchange, **changes)
    return replace(after, exchange=with_waiting(after, exchange))
