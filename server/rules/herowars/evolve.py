"""``evolve`` for the Hero Wars contest: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.common import QuestRoll, RolledSide
from protocol.events import Revealed
from protocol.rulesets import herowars as h
from server.rules.herowars.exchange import Roll, resolve
from server.rules.herowars.state import Fighter, HerowarsState, Rolled
from server.rules.questworlds.chart import chart_after
from server.rules.questworlds.hero_points import awaiting
from server.rules.questworlds.last_roll import exchange_roll
from server.rules.questworlds.levels import Level, bump_up

replace = msgspec.structs.replace


def evolve(state: HerowarsState, event: h.Event | Revealed) -> HerowarsState:
    return chart_after(state, _evolve(state, event), applied=type(event) is h.ExchangeApplied)


def _evolve(state: HerowarsState, event: h.Event | Revealed) -> HerowarsState:
    return BY_EVENT[type(event)](state, event)


def _round_started(state: HerowarsState, event: h.RoundStarted) -> HerowarsState:
    return replace(
        state, round=event.round, phase="declaring", order=list(event.order), turn=0, intents={}, exchange=None
    )


def _revealed(state: HerowarsState, event: Revealed) -> HerowarsState:
    intents = {p: h.Intent() for p in state.order}
    intents.update({e.participant: e.payload for e in event.entries if isinstance(e.payload, h.Intent)})
    return replace(state, intents=intents, phase="ready", turn=0)


def _order_set(state: HerowarsState, event: h.OrderSet) -> HerowarsState:
    return replace(state, order=list(event.order))


def _exchange_rolled(state: HerowarsState, event: h.ExchangeRolled) -> HerowarsState:
    rolled = Rolled(
        number=event.exchange,
        actor=event.actor,
        defender=event.defender,
        bid=event.bid,
        actor_face=event.actor_face,
        defender_face=event.defender_face,
        actor_level=event.actor_level,
        defender_level=event.defender_level,
        both_masteries=event.both_masteries,
        eligible=[],
    )
    return replace(state, phase="rolled", exchange=with_waiting(state, rolled))


def _hero_point_spent(state: HerowarsState, event: h.HeroPointSpent) -> HerowarsState:
    return _hero_point(state, event.contestant, event.level)


def _hero_point_passed(state: HerowarsState, event: h.HeroPointPassed) -> HerowarsState:
    return _hero_point(state, event.contestant, None)


def _exchange_tied(state: HerowarsState, event: h.ExchangeTied) -> HerowarsState:
    return replace(state, phase="tied")


def _exchange_applied(state: HerowarsState, event: h.ExchangeApplied) -> HerowarsState:
    fighters = dict(state.fighters)
    for contestant, lost in event.lost.items():
        fighters[contestant] = _moved(fighters[contestant], -lost)
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
        last_roll=_last_roll(state, event),
    )


def _ap_adjusted(state: HerowarsState, event: h.ApAdjusted) -> HerowarsState:
    fighter = _moved(state.fighters[event.contestant], event.delta)
    return replace(state, fighters={**state.fighters, event.contestant: fighter})


def _contest_decided(state: HerowarsState, event: h.ContestDecided) -> HerowarsState:
    # a rolled (or tied) exchange the decision cut short is void: resumed, its actor rolls again
    resume = state.resume_phase if state.phase == "decided" else state.phase
    if resume in ("rolled", "tied"):
        resume = "ready"
    return replace(state, phase="decided", outcome=event, exchange=None, resume_phase=resume)


def _contest_resumed(state: HerowarsState, event: h.ContestResumed) -> HerowarsState:
    return replace(state, outcome=None, phase=state.resume_phase or "ready", resume_phase=None)


# Each event's own class picks its fold: a failed class pattern costs a thousand instructions; events are final classes.
BY_EVENT: dict[type, Callable[[HerowarsState, Any], HerowarsState]] = {
    h.RoundStarted: _round_started,
    Revealed: _revealed,
    h.OrderSet: _order_set,
    h.ExchangeRolled: _exchange_rolled,
    h.HeroPointSpent: _hero_point_spent,
    h.HeroPointPassed: _hero_point_passed,
    h.ExchangeTied: _exchange_tied,
    h.ExchangeApplied: _exchange_applied,
    h.ApAdjusted: _ap_adjusted,
    h.ContestDecided: _contest_decided,
    h.ContestResumed: _contest_resumed,
}


def _last_roll(state: HerowarsState, event: h.ExchangeApplied) -> QuestRoll | None:
    exchange = state.exchange
    if exchange is None:
        return state.last_roll
    sides = (
        RolledSide(exchange.actor, exchange.actor_face, exchange.actor_level, exchange.actor in exchange.spent),
        RolledSide(
            exchange.defender, exchange.defender_face, exchange.defender_level, exchange.defender in exchange.spent
        ),
    )
    return exchange_roll(
        number=exchange.number, sides=sides, kind="exchange", winner=event.winner, previous=state.last_roll
    )


def _moved(fighter: Fighter, delta: int) -> Fighter:
    return replace(fighter, ap=fighter.ap + delta, ap_known=fighter.ap_known or delta != 0)


def _hero_point(state: HerowarsState, contestant: str, level: str | None) -> HerowarsState:
    exchange = state.exchange
    if exchange is None:
        return state
    if level is None:
        return replace(state, exchange=with_waiting(state, replace(exchange, passed=[*exchange.passed, contestant])))
    side = "actor_level" if contestant == exchange.actor else "defender_level"
    exchange = replace(exchange, spent=[*exchange.spent, contestant], **{side: level})
    fighter = state.fighters[contestant]
    after = replace(
        state, fighters={**state.fighters, contestant: replace(fighter, hero_points=fighter.hero_points - 1)}
    )
    return replace(after, exchange=with_waiting(after, exchange))


def with_waiting(state: HerowarsState, exchange: Rolled) -> Rolled:
    """The exchange with who may spend a hero point and whose answer it waits for brought up to date."""
    pcs = [c for c in (exchange.actor, exchange.defender) if state.fighters[c].player]
    answered = [*exchange.spent, *exchange.passed]
    eligible = [
        c
        for c in pcs
        if state.fighters[c].hero_points > 0 and c not in answered and hero_point_matters(state, exchange, c)
    ]
    return replace(exchange, eligible=eligible, waiting=awaiting(state.hero_point_window, pcs, answered, eligible))


def hero_point_matters(state: HerowarsState, exchange: Rolled, contestant: str) -> bool:
    """Whether bumping ``contestant``'s result one step would change what the exchange does: the AP each side
    loses or gains, or whether it is a tie the GM settles (where the GM may still move AP). A step that only
    renames the case (a Critical that transfers a stake a handicap cut to 0) or the winner (Failure against
    Fumble becoming both Failure, with the same losses) changes nothing."""
    actor = Roll(Level.from_label(exchange.actor_level), exchange.actor_face)
    defender = Roll(Level.from_label(exchange.defender_level), exchange.defender_face)
    if contestant == exchange.actor:
        bumped = (Roll(bump_up(actor.level), actor.face), defender)
    else:
        bumped = (actor, Roll(bump_up(defender.level), defender.face))

    def resolved(sides: tuple[Roll, Roll]) -> object:
        edge = state.fighters[exchange.actor].edge
        done = resolve(*sides, exchange.bid, edge, exchange.both_masteries, state.cap_3x)
        return (done.case == "tie", done.actor_loss, done.defender_loss, done.gained)

    return resolved((actor, defender)) != resolved(bumped)
