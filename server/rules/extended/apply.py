"""Applying a rolled exchange, and what follows an AP change: the next exchange, a new round, the end."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import extended as x
from server.rules.extended import codes
from server.rules.extended.exchange import ExchangeParty, ExchangeResult, Party, resolve_exchange
from server.rules.extended.state import ExtendedState, Rolled
from server.rules.questworlds.levels import Level, bump_up
from server.rules.questworlds.outcome import outcome_for, simple_contest_result


def resolve(state: ExtendedState, exchange: Rolled, actor_level: Level, defender_level: Level) -> ExchangeResult:
    """The rolled exchange resolved from these (final) results."""
    return resolve_exchange(
        ExchangeParty(actor_level, exchange.actor_face, exchange.actor_value, state.fighters[exchange.actor].edge),
        ExchangeParty(defender_level, exchange.defender_face, exchange.defender_value),
        exchange.bid,
        better_roll=state.better_roll,
        asymmetrical=exchange.kind == "asymmetrical",
    )


def hero_point_matters(state: ExtendedState, exchange: Rolled, contestant: str) -> bool:
    """Whether bumping ``contestant``'s result one step would change who wins or how much AP moves."""
    actor_level, defender_level = codes.level(exchange.actor_level), codes.level(exchange.defender_level)
    now = resolve(state, exchange, actor_level, defender_level)
    if contestant == exchange.actor:
        bumped = resolve(state, exchange, bump_up(actor_level), defender_level)
    else:
        bumped = resolve(state, exchange, actor_level, bump_up(defender_level))
    return (now.winner, now.loser_loses, now.winner_gains) != (bumped.winner, bumped.loser_loses, bumped.winner_gains)


def may_spend(state: ExtendedState, exchange: Rolled) -> list[str]:
    """The PCs of the exchange who may still spend a hero point: one left, none used on this exchange yet, and
    a step up that would change the result."""
    if exchange.kind == "unrelated":
        return []
    return [
        c
        for c in (exchange.actor, exchange.defender)
        if state.fighters[c].player
        and state.fighters[c].hero_points > 0
        and c not in exchange.spent
        and c not in exchange.passed
        and hero_point_matters(state, exchange, c)
    ]


def apply_exchange(state: ExtendedState) -> list[x.Event]:
    """The rolled exchange's AP changes, then whatever they lead to."""
    exchange = state.exchange
    assert exchange is not None
    actor_level, defender_level = codes.level(exchange.actor_level), codes.level(exchange.defender_level)
    if exchange.kind == "unrelated":
        if exchange.resistance is None:
            result = "unrelated action"
        else:
            simple = simple_contest_result(
                actor_level, exchange.actor_face, defender_level, exchange.defender_face, state.better_roll
            )
            result = f"unrelated action: {simple}"
        applied = x.ExchangeApplied(exchange=exchange.number, winner=None, loser=None, lost=0, gained=0, result=result)
        return [applied, *after_ap_change(state, [applied])]
    resolved = resolve(state, exchange, actor_level, defender_level)
    side = {Party.ACTOR: exchange.actor, Party.DEFENDER: exchange.defender}
    winner = side[resolved.winner] if resolved.winner is not None else None
    loser = side[resolved.loser] if resolved.loser is not None else None
    if winner is None:
        result = "tie"
    elif resolved.transferred:
        result = f"{loser} transfers {resolved.loser_loses} AP to {winner}"
    elif resolved.loser_loses:
        result = f"{loser} loses {resolved.loser_loses} AP"
    else:
        result = f"{winner} wins the asymmetrical exchange"
    applied = x.ExchangeApplied(
        exchange=exchange.number,
        winner=winner,
        loser=loser,
        lost=resolved.loser_loses,
        gained=resolved.winner_gains,
        result=result,
    )
    return [applied, *after_ap_change(state, [applied])]


def after_ap_change(state: ExtendedState, changes: Sequence[x.Event]) -> list[x.Event]:
    """The end at 0 AP or less (even mid-round), a return above 0, or the round going on."""
    from server.rules.extended.evolve import evolve

    after = state
    for event in changes:
        after = evolve(after, event)
    down = [f for f in after.fighters.values() if f.ap <= 0]
    if down:
        return [_decided(after, [f.id for f in down])]
    if after.phase == "decided" or state.phase == "decided" or state.parting_shot:
        back = state.outcome.loser if state.outcome is not None and state.outcome.loser else state.order[0]
        return [x.ContestResumed(contestant=back), _next_round(after)]
    if after.phase == "ready" and after.turn >= len(after.order):
        return [_next_round(after)]
    return []


def _next_round(state: ExtendedState) -> x.RoundStarted:
    resumed = state.parting_shot or state.phase == "decided" or len(state.order) < len(state.fighters)
    order = list(state.fighters) if resumed else list(state.order)
    return x.RoundStarted(round=state.round + 1, order=order)


def _decided(state: ExtendedState, down: list[str]) -> x.ContestDecided:
    if len(down) == len(state.fighters):
        lowest = min(state.fighters[c].ap for c in down)
        return x.ContestDecided(
            winner=None, loser=None, loser_ap=lowest, level="Both defeated", consequence="", benefit=""
        )
    loser = down[0]
    winner = state.opponent(loser)
    ap = state.fighters[loser].ap
    outcome = outcome_for(ap)
    return x.ContestDecided(
        winner=winner,
        loser=loser,
        loser_ap=ap,
        level=outcome.degree.label,
        consequence=outcome.consequence.value,
        benefit=outcome.benefit.value,
    )
