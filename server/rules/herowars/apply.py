"""Applying a rolled Hero Wars exchange, settling a tie, and ending the contest at 0 AP or less."""

from __future__ import annotations

from typing import assert_never

from protocol.errors import Refused
from protocol.rulesets import herowars as h
from server.rules.herowars import codes
from server.rules.herowars.evolve import evolve
from server.rules.herowars.exchange import CAP, Roll, Side, modified_bid, resolve
from server.rules.herowars.state import HerowarsState
from server.rules.questworlds.levels import Level
from server.rules.questworlds.outcome import outcome_for


def apply_exchange(state: HerowarsState) -> list[h.Event]:
    """The rolled exchange resolved by seed 001's tables (or declared a tie), and the end if it came."""
    rolled = state.exchange
    assert rolled is not None
    actor, defender = state.fighters[rolled.actor], state.fighters[rolled.defender]
    result = resolve(
        Roll(Level.from_label(rolled.actor_level), rolled.actor_face),
        Roll(Level.from_label(rolled.defender_level), rolled.defender_face),
        rolled.bid,
        edge=actor.edge,
        both_masteries=rolled.both_masteries,
        cap_3x=state.cap_3x,
    )
    if result.case == "tie":
        return [h.ExchangeTied(exchange=rolled.number)]
    winner: str | None
    match result.winner:
        case "actor":
            winner = actor.id
        case "defender":
            winner = defender.id
        case None:
            winner = None
        case _:
            assert_never(result.winner)
    lost = {c: n for c, n in ((actor.id, result.actor_loss), (defender.id, result.defender_loss)) if n}
    applied = h.ExchangeApplied(
        exchange=rolled.number,
        case=result.case,
        winner=winner,
        lost=lost,
        gained=result.gained,
        capped=result.capped,
    )
    return [applied, *after_ap_change(evolve(state, applied))]


def settle_tie(state: HerowarsState, command: h.SettleTie) -> list[h.Event]:
    """The GM's result for a tied exchange: nobody loses, or the named winner's opponent loses ``loss``.

    The loss is at most what the tables can give: four times the modified bid (three with ``cap_3x``)."""
    rolled = state.exchange
    assert rolled is not None
    if command.winner is None:
        if command.loss or command.transfer:
            raise Refused(codes.BAD_TIE, "loss, transfer: with no winner nobody loses or gains")
        applied = h.ExchangeApplied(rolled.number, "tie", None, {}, 0, reason=command.reason)
        return [applied, *after_ap_change(evolve(state, applied))]
    if command.winner not in (rolled.actor, rolled.defender):
        raise Refused(codes.BAD_TIE, f"winner: {command.winner!r} is not in this exchange")
    loser = rolled.defender if command.winner == rolled.actor else rolled.actor
    paid_by: Side = "defender" if loser == rolled.defender else "actor"
    base = modified_bid(rolled.bid, state.fighters[rolled.actor].edge, paid_by)
    most = (CAP if state.cap_3x else 4) * base
    if not 0 <= command.loss <= most:
        raise Refused(codes.BAD_TIE, f"loss: {command.loss} is not between 0 and {most} (the most the tables give)")
    lost = {loser: command.loss} if command.loss else {}
    gained = command.loss if command.transfer else 0
    applied = h.ExchangeApplied(rolled.number, "tie", command.winner, lost, gained, reason=command.reason)
    return [applied, *after_ap_change(evolve(state, applied))]


def after_ap_change(state: HerowarsState) -> list[h.Event]:
    """After AP moved: the contest ends when a contestant is at 0 AP or less, or resumes where it stopped
    (the same round, the same turn, the GM's order) when a GM adjustment brought everyone back above 0; a
    round whose exchanges are all done starts the next."""
    fallen = [f for f in state.fighters.values() if f.ap <= 0]
    if state.phase == "decided":
        if fallen:
            return []
        resumed = h.ContestResumed()
        return [resumed, *_round_end(evolve(state, resumed))]
    if fallen:
        defeated = []
        for f in fallen:
            outcome = outcome_for(f.ap)
            defeated.append(h.Defeat(f.id, f.ap, outcome.degree.label, outcome.consequence.value))
        standing = [f.id for f in state.fighters.values() if f.ap > 0]
        winner = standing[0] if standing else None
        benefit = outcome_for(fallen[0].ap).benefit.value if winner is not None else None
        return [h.ContestDecided(winner=winner, defeated=defeated, benefit=benefit)]
    return _round_end(state)


def _round_end(state: HerowarsState) -> list[h.Event]:
    """The next round, in the same order, once the round's exchanges are all done."""
    if state.phase == "ready" and state.turn >= len(state.order):
        return [h.RoundStarted(round=state.round + 1, order=list(state.order))]
    return []
