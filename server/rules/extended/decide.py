"""``decide`` for the extended contest: validate a command against the state, return the events."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import extended as x
from server.engine.ruleset import Context
from server.rules.extended import codes
from server.rules.extended.apply import apply_exchange
from server.rules.extended.roll import roll_exchange
from server.rules.extended.state import ExtendedState


def decide(state: ExtendedState, command: x.Command, ctx: Context) -> Sequence[x.Event]:
    match command:
        case x.SetOrder():
            _gm(ctx, "set the order")
            if state.phase not in ("declaring", "ready") or (state.phase == "ready" and state.turn > 0):
                raise Refused(codes.OUT_OF_PHASE, "the order can only change before the round's first roll")
            if sorted(command.order) != sorted(state.order):
                raise Refused(codes.BAD_ORDER, f"order: must list exactly {sorted(state.order)}")
            return [x.OrderSet(order=list(command.order))]
        case x.ProposeBid():
            _gm(ctx, "propose a bid")
            _waiting_to_act(state, command.contestant)
            check_bid(state, command.contestant, command.bid)
            return [x.BidProposed(contestant=command.contestant, bid=command.bid)]
        case x.AcceptBid():
            _controls(ctx, command.contestant)
            if command.contestant not in state.proposals:
                raise Refused(codes.NO_PROPOSAL, f"contestant: no bid was proposed to {command.contestant!r}")
            _waiting_to_act(state, command.contestant)
            return [x.BidAccepted(contestant=command.contestant, bid=state.proposals[command.contestant])]
        case x.Roll():
            actor = state.actor
            if actor is None:
                raise Refused(codes.OUT_OF_PHASE, f"nothing to roll: the contest is {state.phase}")
            if not (ctx.is_gm or ctx.may_act_for(actor)):
                raise Refused(codes.OUT_OF_TURN, f"it is {actor}'s exchange: only its player or the GM rolls it")
            if ctx.dice.mode == "physical" and not ctx.is_gm and not state.players_type_faces:
                raise Refused(codes.TYPED_BY_GM, "physical dice: the GM types in the faces rolled at the table")
            rolled = roll_exchange(state, actor, command.faces, ctx)
            return _settle_if_nobody_may_spend(state, rolled)
        case x.SpendHeroPoint() | x.PassHeroPoint():
            return _hero_point(state, command, ctx)
        case x.Confirm():
            _gm(ctx, "confirm an exchange")
            if state.exchange is None:
                raise Refused(codes.OUT_OF_PHASE, "no rolled exchange to confirm")
            return apply_exchange(state)
        case x.PartingShot():
            return _parting_shot(state, command, ctx)
        case x.Adjust():
            _gm(ctx, "adjust AP")
            _known(state, command.contestant)
            if not command.reason.strip():
                raise Refused(codes.NO_REASON, "reason: an adjustment needs a reason")
            if command.delta == 0:
                raise Refused(codes.BAD_DELTA, "delta: an adjustment changes AP by a non-zero amount")
            from server.rules.extended.apply import after_ap_change

            adjusted = x.ApAdjusted(contestant=command.contestant, delta=command.delta, reason=command.reason)
            return [adjusted, *after_ap_change(state, [adjusted])]


def check_declaration(state: ExtendedState, participant: str, payload: x.Intent, ctx: Context) -> None:
    """A sealed intent is checked when declared: a bid within the limits and ratings that parse."""
    if payload.bid is not None:
        check_bid(state, participant, payload.bid)
    codes.check_switch(payload.ability, payload.rating)
    if payload.kind == "unrelated" and payload.resistance is not None:
        codes.parse_rating(payload.resistance, "resistance")
    elif payload.resistance is not None:
        raise Refused(codes.BAD_INTENT, "resistance: only an unrelated action is resolved against a resistance")


def bid_limit(state: ExtendedState, contestant: str) -> int:
    """A player may stake up to the larger of current and starting AP; the GM never more than it has."""
    fighter = state.fighters[contestant]
    return max(fighter.ap, fighter.starting_ap) if fighter.player else fighter.ap


def check_bid(state: ExtendedState, contestant: str, bid: int) -> None:
    if bid < 1:
        raise Refused(codes.BID_TOO_LOW, f"bid: {bid} is below the minimum of 1")
    limit = bid_limit(state, contestant)
    if bid > limit:
        raise Refused(codes.BID_TOO_HIGH, f"bid: {bid} is above {contestant}'s limit of {limit}")


def _gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def _known(state: ExtendedState, contestant: str) -> None:
    if contestant not in state.fighters:
        raise Refused(codes.NO_SUCH_CONTESTANT, f"contestant: no contestant {contestant!r}")


def _controls(ctx: Context, contestant: str) -> None:
    if not ctx.may_act_for(contestant):
        raise Refused(codes.NOT_YOUR_CONTESTANT, f"contestant: you do not control {contestant!r}")


def _waiting_to_act(state: ExtendedState, contestant: str) -> None:
    _known(state, contestant)
    if state.phase != "ready" or contestant not in state.order[state.turn :]:
        raise Refused(codes.OUT_OF_PHASE, f"contestant: {contestant!r} has no exchange waiting this round")


def _settle_if_nobody_may_spend(state: ExtendedState, rolled: list[x.Event]) -> list[x.Event]:
    """The events, and the exchange applied after them when nobody may still spend a hero point."""
    from server.rules.extended.evolve import evolve

    after = state
    for event in rolled:
        after = evolve(after, event)
    if after.exchange is not None and not after.exchange.eligible:
        return [*rolled, *apply_exchange(after)]
    return rolled


def _hero_point(state: ExtendedState, command: x.SpendHeroPoint | x.PassHeroPoint, ctx: Context) -> list[x.Event]:
    from server.rules.questworlds.levels import bump_up

    _known(state, command.contestant)
    _controls(ctx, command.contestant)
    exchange = state.exchange
    if exchange is None:
        raise Refused(codes.OUT_OF_PHASE, "no rolled exchange: hero points are spent after the dice")
    if command.contestant not in exchange.eligible:
        fighter = state.fighters[command.contestant]
        fresh = command.contestant not in exchange.spent and command.contestant not in exchange.passed
        if fighter.player and fighter.hero_points > 0 and fresh and exchange.kind != "unrelated":
            raise Refused(
                codes.HERO_POINT_NO_EFFECT,
                f"contestant: a hero point cannot change this exchange's result for {command.contestant!r}",
            )
        raise Refused(codes.NO_HERO_POINT, f"contestant: {command.contestant!r} has no hero point to spend now")
    event: x.Event
    if isinstance(command, x.SpendHeroPoint):
        own = exchange.actor_level if command.contestant == exchange.actor else exchange.defender_level
        event = x.HeroPointSpent(contestant=command.contestant, level=codes.level_name(bump_up(codes.level(own))))
    else:
        event = x.HeroPointPassed(contestant=command.contestant)
    return _settle_if_nobody_may_spend(state, [event])


def _parting_shot(state: ExtendedState, command: x.PartingShot, ctx: Context) -> list[x.Event]:
    outcome = state.outcome
    if state.phase != "decided" or outcome is None or outcome.winner is None:
        raise Refused(codes.OUT_OF_PHASE, "a parting shot follows a victory over an opponent")
    if command.contestant != outcome.winner:
        raise Refused(codes.NOT_THE_VICTOR, f"contestant: only the victor, {outcome.winner!r}, may take it")
    _controls(ctx, command.contestant)
    if state.parting_shot_taken:
        raise Refused(codes.OUT_OF_PHASE, "the parting shot has been taken")
    bid = command.bid if command.bid is not None else codes.DEFAULT_BID
    check_bid(state, command.contestant, bid)
    codes.check_switch(command.ability, command.rating)
    intent = x.Intent(action=command.action, bid=bid, ability=command.ability, rating=command.rating)
    return [x.PartingShotTaken(contestant=command.contestant, intent=intent)]
