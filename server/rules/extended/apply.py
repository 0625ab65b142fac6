"""Applying a rolled exchange, and what follows any AP change: the next exchange, a new round, the end."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import extended as x
from server.rules.extended import codes
from server.rules.extended.decision import decided, over
from server.rules.extended.exchange import Party
from server.rules.extended.offer import resolve
from server.rules.extended.state import ExtendedState
from server.rules.questworlds.levels import Level
from server.rules.questworlds.outcome import simple_contest_result


def group_tie_possible(state: ExtendedState) -> bool:
    """A Fumble-against-Fumble exchange in a group contest: the GM may have both lose ½ the bid."""
    exchange = state.exchange
    return (
        state.group
        and exchange is not None
        and exchange.kind != "unrelated"
        and exchange.actor_level == exchange.defender_level == Level.FUMBLE.label
    )


def apply_exchange(state: ExtendedState, group_tie: bool = False) -> list[x.Event]:
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
        return [applied, *progress(state, [applied])]
    if group_tie:
        each = (exchange.bid + 1) // 2
        applied = x.ExchangeApplied(
            exchange=exchange.number,
            winner=None,
            loser=None,
            lost=0,
            gained=0,
            result=f"both fumble: {exchange.actor} and {exchange.defender} each lose {each} AP",
            both_lost=each,
        )
        return [applied, *progress(state, [applied])]
    resolved = resolve(state, exchange, actor_level, defender_level)
    side = {Party.ACTOR: exchange.actor, Party.DEFENDER: exchange.defender}
    winner = side[resolved.winner] if resolved.winner is not None else None
    loser = side[resolved.loser] if resolved.loser is not None else None
    if winner is None:
        result = "tie"
    elif resolved.winner is Party.ACTOR and resolved.stake == 0 and exchange.kind != "asymmetrical":
        result = f"{winner} wins, but {exchange.actor}'s handicap cuts the stake to 0: no AP moves"
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
    return [applied, *progress(state, [applied])]


def progress(state: ExtendedState, changes: Sequence[x.Event]) -> list[x.Event]:
    """After ``changes``: the end once at most one side is left (even mid-round), a return to the contest of
    a decided one, or the next round once everyone still in has acted."""
    from server.rules.extended.evolve import evolve

    after = state
    for event in changes:
        after = evolve(after, event)
    if over(after):
        return [decided(after)]
    if after.outcome is not None:
        back = next(c for c, f in after.fighters.items() if f.in_contest and not state.fighters[c].in_contest)
        resumed = x.ContestResumed(contestant=back)
        if state.parting_shot:
            return [resumed, next_round(evolve(after, resumed))]
        return [resumed, *round_end(evolve(after, resumed))]
    return round_end(after)


def round_end(state: ExtendedState) -> list[x.Event]:
    """A new round once everyone still in has acted, unless a parting shot may still follow."""
    waiting = any(state.fighters[victor].in_contest for victor in state.open_shots)
    if state.phase == "ready" and state.actor is None and not waiting:
        return [next_round(state)]
    return []


def next_round(state: ExtendedState) -> x.RoundStarted:
    """The next round keeps the order as last set; whoever came back joins at the end."""
    base = [c for c in state.base_order if state.fighters[c].in_contest]
    base += [c for c, f in state.fighters.items() if f.in_contest and c not in base]
    return x.RoundStarted(round=state.round + 1, order=base)
