"""``evolve`` for the extended contest: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from typing import assert_never

import msgspec

from protocol.events import Revealed
from protocol.rulesets import extended as x
from server.rules.extended.apply import may_spend
from server.rules.extended.state import ExtendedState, Fighter, Rolled

replace = msgspec.structs.replace


def evolve(state: ExtendedState, event: x.Event | Revealed) -> ExtendedState:
    match event:
        case x.RoundStarted():
            return replace(
                state,
                round=event.round,
                phase="declaring",
                order=list(event.order),
                turn=0,
                intents={},
                proposals={},
                exchange=None,
                parting_shot=False,
            )
        case Revealed():
            intents = {p: x.Intent() for p in state.order}
            intents.update({e.participant: e.payload for e in event.entries if isinstance(e.payload, x.Intent)})
            return replace(state, intents=intents, phase="ready", turn=0, fighters=_switch(state, intents))
        case x.OrderSet():
            return replace(state, order=list(event.order))
        case x.BidProposed():
            return replace(state, proposals={**state.proposals, event.contestant: event.bid})
        case x.BidAccepted():
            intent = replace(state.intents.get(event.contestant, x.Intent()), bid=event.bid)
            proposals = {c: b for c, b in state.proposals.items() if c != event.contestant}
            return replace(state, intents={**state.intents, event.contestant: intent}, proposals=proposals)
        case x.PartingShotTaken():
            intents = {event.contestant: event.intent}
            return replace(
                state,
                phase="ready",
                order=[event.contestant],
                turn=0,
                intents=intents,
                proposals={},
                parting_shot=True,
                parting_shot_taken=True,
                fighters=_switch(state, intents),
            )
        case x.ExchangeRolled():
            return replace(state, phase="rolled", exchange=_rolled(state, event))
        case x.HeroPointSpent():
            return _hero_point(state, event.contestant, event.level)
        case x.HeroPointPassed():
            return _hero_point(state, event.contestant, None)
        case x.ExchangeApplied():
            fighters = dict(state.fighters)
            if event.loser is not None and event.lost:
                fighters[event.loser] = _moved(fighters[event.loser], -event.lost)
            if event.winner is not None and event.gained:
                fighters[event.winner] = _moved(fighters[event.winner], event.gained)
            return replace(
                state,
                fighters=fighters,
                phase="ready",
                turn=state.turn + 1,
                exchange=None,
                exchanges=event.exchange,
                last=event,
                parting_shot=False,
            )
        case x.ApAdjusted():
            fighter = _moved(state.fighters[event.contestant], event.delta)
            return replace(state, fighters={**state.fighters, event.contestant: fighter})
        case x.ContestDecided():
            return replace(state, phase="decided", outcome=event, exchange=None)
        case x.ContestResumed():
            return replace(state, outcome=None)
        case _:
            assert_never(event)


def _moved(fighter: Fighter, delta: int) -> Fighter:
    return replace(fighter, ap=fighter.ap + delta, ap_known=fighter.ap_known or delta != 0)


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
    return replace(rolled, eligible=may_spend(state, rolled))


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
    return replace(after, exchange=replace(exchange, eligible=may_spend(after, exchange)))
