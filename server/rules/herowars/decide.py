"""``decide`` for the Hero Wars contest: validate a command against the state, return the events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import herowars as h
from server.engine.ruleset import Context
from server.rules.herowars import codes
from server.rules.herowars.apply import after_ap_change, apply_exchange, settle_tie
from server.rules.herowars.evolve import evolve
from server.rules.herowars.roll import roll_exchange
from server.rules.herowars.state import HerowarsState
from server.rules.questworlds.hero_points import refuse_answer
from server.rules.questworlds.levels import Level, bump_up
from server.rules.questworlds.setup import bid_limit


def decide(state: HerowarsState, command: h.Command, ctx: Context) -> Sequence[h.Event]:
    match command:
        case h.SetOrder():
            _gm(ctx, "set the order")
            if state.phase not in ("declaring", "ready") or (state.phase == "ready" and state.turn > 0):
                raise Refused(codes.OUT_OF_PHASE, "the order can only change before the round's first roll")
            if sorted(command.order) != sorted(state.order):
                raise Refused(codes.BAD_ORDER, f"order: must list exactly {sorted(state.order)}")
            return [h.OrderSet(order=list(command.order))]
        case h.Roll():
            actor = state.actor
            if actor is None:
                raise Refused(codes.OUT_OF_PHASE, f"nothing to roll: the contest is {state.phase}")
            if not (ctx.is_gm or ctx.may_act_for(actor)):
                raise Refused(codes.OUT_OF_TURN, f"it is {actor}'s exchange: only its player or the GM rolls it")
            if ctx.dice.mode == "physical" and not ctx.is_gm and not state.players_type_faces:
                raise Refused(codes.TYPED_BY_GM, "physical dice: the GM types in the faces rolled at the table")
            return _settle_unless_waiting(state, [roll_exchange(state, actor, command.faces, ctx)])
        case h.SpendHeroPoint() | h.PassHeroPoint():
            return _hero_point(state, command, ctx)
        case h.Confirm():
            _gm(ctx, "confirm an exchange")
            if state.exchange is None or state.phase != "rolled":
                raise Refused(codes.OUT_OF_PHASE, "no rolled exchange to confirm")
            return apply_exchange(state)
        case h.SettleTie():
            _gm(ctx, "settle a tie")
            if state.phase != "tied":
                raise Refused(codes.OUT_OF_PHASE, "no tied exchange to settle")
            return settle_tie(state, command)
        case h.Adjust():
            _gm(ctx, "adjust AP")
            _known(state, command.contestant)
            if not command.reason.strip():
                raise Refused(codes.NO_REASON, "reason: an adjustment needs a reason")
            if command.delta == 0:
                raise Refused(codes.BAD_DELTA, "delta: an adjustment changes AP by a non-zero amount")
            if abs(command.delta) > 10_000:
                raise Refused(codes.BAD_DELTA, f"delta: {command.delta} is beyond ±10000")
            adjusted = h.ApAdjusted(contestant=command.contestant, delta=command.delta, reason=command.reason)
            return [adjusted, *after_ap_change(evolve(state, adjusted))]
        case _:
            assert_never(command)


def check_declaration(state: HerowarsState, participant: str, payload: h.Intent, ctx: Context) -> None:
    """A sealed intent is checked when declared: its bid within the limits."""
    if payload.bid is not None:
        check_bid(state, participant, payload.bid)


def check_bid(state: HerowarsState, contestant: str, bid: int) -> None:
    if bid < 1:
        raise Refused(codes.BID_TOO_LOW, f"bid: {bid} is below the minimum of 1")
    fighter = state.fighters[contestant]
    limit = bid_limit(fighter.ap, fighter.starting_ap, fighter.player)
    if bid > limit:
        raise Refused(codes.BID_TOO_HIGH, f"bid: {bid} is above {contestant}'s limit of {limit}")


def _gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def _known(state: HerowarsState, contestant: str) -> None:
    if contestant not in state.fighters:
        raise Refused(codes.NO_SUCH_CONTESTANT, f"contestant: no contestant {contestant!r}")


def _settle_unless_waiting(state: HerowarsState, events: list[h.Event]) -> list[h.Event]:
    """The events, and the exchange applied after them once it waits for no player's answer (the hero point
    window: every PC's player with ``always``, only a PC that could change the result with ``when_it_matters``)."""
    after = state
    for event in events:
        after = evolve(after, event)
    if after.exchange is not None and not after.exchange.waiting:
        return [*events, *apply_exchange(after)]
    return events


def _hero_point(state: HerowarsState, command: h.SpendHeroPoint | h.PassHeroPoint, ctx: Context) -> list[h.Event]:
    _known(state, command.contestant)
    if not ctx.may_act_for(command.contestant):
        raise Refused(codes.NOT_YOUR_CONTESTANT, f"contestant: you do not control {command.contestant!r}")
    exchange = state.exchange
    if exchange is None or state.phase != "rolled":
        raise Refused(codes.OUT_OF_PHASE, "no rolled exchange: hero points are spent after the dice")
    spend = isinstance(command, h.SpendHeroPoint)
    if command.contestant not in (exchange.eligible if spend else exchange.waiting):
        fighter = state.fighters[command.contestant]
        answered = command.contestant in exchange.spent or command.contestant in exchange.passed
        refuse_answer(command.contestant, spend, fighter.player and fighter.hero_points > 0 and not answered)
    event: h.Event
    if isinstance(command, h.SpendHeroPoint):
        own = exchange.actor_level if command.contestant == exchange.actor else exchange.defender_level
        event = h.HeroPointSpent(contestant=command.contestant, level=bump_up(Level.from_label(own)).label)
    else:
        event = h.HeroPointPassed(contestant=command.contestant)
    return _settle_unless_waiting(state, [event])
