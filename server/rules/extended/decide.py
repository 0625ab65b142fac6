"""``decide`` for the extended contest: validate a command against the state, return the events."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import extended as x
from server.engine.ruleset import Context
from server.rules.extended import codes, options
from server.rules.extended.apply import apply_exchange, group_tie_possible, progress, round_end
from server.rules.extended.evolve import evolve
from server.rules.extended.order import Declared, round_order
from server.rules.extended.roll import effective_bid, roll_exchange
from server.rules.extended.state import ExtendedState


def decide(state: ExtendedState, command: x.Command, ctx: Context) -> Sequence[x.Event]:
    match command:
        case x.SetOrder():
            _gm(ctx, "set the order")
            _order_open(state, revealed=False)
            if sorted(command.order) != sorted(state.order):
                raise Refused(codes.BAD_ORDER, f"order: must list exactly {sorted(state.order)}")
            return [x.OrderSet(order=list(command.order))]
        case x.OrderBy():
            _gm(ctx, "order the round")
            _order_open(state, revealed=True)
            declared = {
                c: Declared(state.daring_of(c), effective_bid(state, c, state.intent(c)), state.fighters[c].ap)
                for c in state.order
            }
            return [x.OrderSet(order=round_order(command.mode, state.order, declared), mode=command.mode)]
        case x.RankDaring():
            _gm(ctx, "rank an action's daring")
            _order_open(state, revealed=True)
            _known(state, command.contestant)
            if command.contestant not in state.order:
                raise Refused(codes.NO_SUCH_CONTESTANT, f"contestant: {command.contestant!r} is not in this round")
            return [x.DaringRanked(contestant=command.contestant, daring=command.daring)]
        case x.Delay():
            _in_and_controlled(state, command.contestant, ctx)
            _between_turns(state)
            if not state.waiting(command.contestant):
                raise Refused(codes.OUT_OF_TURN, f"contestant: {command.contestant!r} has no action left to delay")
            if command.contestant in state.delayed:
                raise Refused(codes.OUT_OF_TURN, f"contestant: {command.contestant!r} is already delaying")
            return [x.Delayed(contestant=command.contestant)]
        case x.JumpIn():
            _in_and_controlled(state, command.contestant, ctx)
            _between_turns(state)
            if command.contestant not in state.delayed or not state.waiting(command.contestant):
                raise Refused(codes.NOT_DELAYED, f"contestant: {command.contestant!r} is not delaying")
            return [x.JumpedIn(contestant=command.contestant)]
        case x.AllowChange():
            _gm(ctx, "allow a change of action")
            _ready(state)
            _known(state, command.contestant)
            if not state.waiting(command.contestant):
                raise Refused(codes.OUT_OF_TURN, f"contestant: {command.contestant!r} has no action left to change")
            if command.contestant in state.changes_allowed:
                raise Refused(
                    codes.CHANGE_ALREADY_ALLOWED,
                    f"contestant: {command.contestant!r} may already change its action",
                )
            return [x.ChangeAllowed(contestant=command.contestant)]
        case x.ChangeIntent():
            _in_and_controlled(state, command.contestant, ctx, gm_for_anyone=True)
            _ready(state)
            if not state.waiting(command.contestant):
                raise Refused(codes.OUT_OF_TURN, f"contestant: {command.contestant!r} has no action left to change")
            if not ctx.is_gm and command.contestant not in state.changes_allowed:
                raise Refused(codes.CHANGE_NOT_ALLOWED, "intent: the GM has not allowed this action to change")
            check_declaration(state, command.contestant, command.intent, ctx)
            return [x.IntentChanged(contestant=command.contestant, intent=command.intent)]
        case x.PassTurn():
            _in_and_controlled(state, command.contestant, ctx)
            if state.actor != command.contestant or state.parting_shot:
                raise Refused(codes.OUT_OF_TURN, f"contestant: it is not {command.contestant!r}'s turn")
            passed = x.TurnPassed(contestant=command.contestant)
            return [passed, *progress(state, [passed])]
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
            options.check_typist(state, ctx)
            rolled = roll_exchange(state, actor, _defender(state, actor), command.faces, ctx)
            return _settle_unless_waiting(state, rolled)
        case x.SpendHeroPoint() | x.PassHeroPoint():
            return _hero_point(state, command, ctx)
        case x.Confirm():
            _gm(ctx, "confirm an exchange")
            if state.exchange is None:
                raise Refused(codes.OUT_OF_PHASE, "no rolled exchange to confirm")
            if command.group_tie and not group_tie_possible(state):
                raise Refused(
                    codes.NO_GROUP_TIE, "group_tie: only a Fumble against a Fumble in a group contest may cost both"
                )
            return apply_exchange(state, group_tie=command.group_tie)
        case x.PartingShot():
            return _parting_shot(state, command, ctx)
        case x.DeclinePartingShot():
            if not ctx.is_gm:  # the GM may let the defeated go for a player who does not answer, as it confirms
                _controls(ctx, command.contestant)
            if command.contestant not in state.open_shots:
                raise Refused(codes.NOT_THE_VICTOR, f"contestant: {command.contestant!r} has no parting shot to take")
            declined = x.PartingShotDeclined(contestant=command.contestant)
            return [declined, *round_end(evolve(state, declined))]
        case x.Adjust():
            _gm(ctx, "adjust AP")
            _known(state, command.contestant)
            if not command.reason.strip():
                raise Refused(codes.NO_REASON, "reason: an adjustment needs a reason")
            if command.delta == 0:
                raise Refused(codes.BAD_DELTA, "delta: an adjustment changes AP by a non-zero amount")
            adjusted = x.ApAdjusted(contestant=command.contestant, delta=command.delta, reason=command.reason)
            return [adjusted, *progress(state, [adjusted])]
        case x.FinalAction() | x.Disengage() | x.Rejoin() | x.Lend() | x.Gift() | x.GrantHeroPoints():
            return options.decide_option(state, command, ctx)


def check_declaration(state: ExtendedState, participant: str, payload: x.Intent, ctx: Context) -> None:
    """A sealed intent is checked when declared: a bid within the limits, ratings that parse, a switch of
    ability only from round 2, and targets that are opponents still in the contest (at least one in a group
    contest, for an exchange)."""
    if not isinstance(payload, x.Intent):
        raise Refused(codes.BAD_INTENT, "payload: declare an extended.intent")
    if payload.bid is not None:
        check_bid(state, participant, payload.bid)
    codes.check_exchange_switch(payload.ability, payload.rating, state.round)
    if payload.kind == "unrelated" and payload.resistance is not None:
        codes.parse_rating(payload.resistance, "resistance")
    elif payload.resistance is not None:
        raise Refused(codes.BAD_INTENT, "resistance: only an unrelated action is resolved against a resistance")
    opponents = state.opponents(participant)
    targets = payload.targets or []
    for i, target in enumerate(targets):
        if target not in opponents or not state.fighters[target].in_contest:
            raise Refused(codes.BAD_TARGET, f"targets[{i}]: {target!r} is not an opponent still in the contest")
    if len(set(targets)) != len(targets):
        raise Refused(codes.BAD_TARGET, "targets: name each opponent once")
    if state.group and payload.kind != "unrelated" and not targets:
        raise Refused(codes.NO_TARGET, "targets: in a group contest an action singles out at least one opponent")


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


def _defender(state: ExtendedState, actor: str) -> str:
    """Whom the actor's exchange engages: its parting shot's target, or its first target still in."""
    if state.parting_shot:
        return state.shot_target or ""
    targets = state.targets(actor)
    if state.intent(actor).kind == "unrelated":
        return targets[0] if targets else ""
    defender = next((t for t in targets if state.fighters[t].in_contest), None)
    if defender is None:
        raise Refused(
            codes.NO_TARGET,
            f"{actor}'s targets are out of the contest: the GM may allow a change of action, or it passes its turn",
        )
    return defender


def _gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def _known(state: ExtendedState, contestant: str) -> None:
    if contestant not in state.fighters:
        raise Refused(codes.NO_SUCH_CONTESTANT, f"contestant: no contestant {contestant!r}")


def _controls(ctx: Context, contestant: str) -> None:
    if not ctx.may_act_for(contestant):
        raise Refused(codes.NOT_YOUR_CONTESTANT, f"contestant: you do not control {contestant!r}")


def _in_and_controlled(state: ExtendedState, contestant: str, ctx: Context, gm_for_anyone: bool = False) -> None:
    _known(state, contestant)
    if not (gm_for_anyone and ctx.is_gm):
        _controls(ctx, contestant)
    if not state.fighters[contestant].in_contest:
        raise Refused(codes.OUT_OF_CONTEST, f"contestant: {contestant!r} is out of the contest")


def _ready(state: ExtendedState) -> None:
    if state.phase != "ready":
        raise Refused(
            codes.OUT_OF_PHASE, f"the round's actions are not revealed and open: the contest is {state.phase}"
        )


def _between_turns(state: ExtendedState) -> None:
    _ready(state)
    if state.exchange is not None or state.current is not None or state.parting_shot:
        raise Refused(codes.OUT_OF_TURN, "another contestant's turn is under way")


def _order_open(state: ExtendedState, revealed: bool) -> None:
    allowed = ("ready",) if revealed else ("declaring", "ready")
    if state.phase not in allowed or state.round_begun:
        when = "after the intents are revealed and " if revealed else ""
        raise Refused(codes.OUT_OF_PHASE, f"the order can only change {when}before the round's first action")


def _waiting_to_act(state: ExtendedState, contestant: str) -> None:
    _known(state, contestant)
    if state.phase != "ready" or not state.waiting(contestant):
        raise Refused(codes.OUT_OF_PHASE, f"contestant: {contestant!r} has no exchange waiting this round")


def _settle_unless_waiting(state: ExtendedState, rolled: list[x.Event]) -> list[x.Event]:
    """The events, and the exchange applied after them once it waits for no player's answer (the hero point
    window: every PC's player with ``always``, only a PC that could change the result with a hero point with
    ``when_it_matters``), unless a group contest's Fumble against Fumble waits for the GM's group tie."""
    after = state
    for event in rolled:
        after = evolve(after, event)
    if after.exchange is not None and not after.exchange.waiting and not group_tie_possible(after):
        return [*rolled, *apply_exchange(after)]
    return rolled


def _hero_point(state: ExtendedState, command: x.SpendHeroPoint | x.PassHeroPoint, ctx: Context) -> list[x.Event]:
    """A PC's answer to a rolled exchange: spend a hero point (one that could change the result), or let the
    result stand."""
    from server.rules.questworlds.hero_points import refuse_answer
    from server.rules.questworlds.levels import bump_up

    _known(state, command.contestant)
    _controls(ctx, command.contestant)
    exchange = state.exchange
    if exchange is None:
        raise Refused(codes.OUT_OF_PHASE, "no rolled exchange: hero points are spent after the dice")
    spend = isinstance(command, x.SpendHeroPoint)
    if command.contestant not in (exchange.eligible if spend else exchange.waiting):
        fighter = state.fighters[command.contestant]
        fresh = command.contestant not in exchange.spent and command.contestant not in exchange.passed
        refuse_answer(
            command.contestant,
            spend,
            fighter.player and fighter.hero_points > 0 and fresh and exchange.kind != "unrelated",
        )
    event: x.Event
    if isinstance(command, x.SpendHeroPoint):
        own = exchange.actor_level if command.contestant == exchange.actor else exchange.defender_level
        event = x.HeroPointSpent(contestant=command.contestant, level=codes.level_name(bump_up(codes.level(own))))
    else:
        event = x.HeroPointPassed(contestant=command.contestant)
    return _settle_unless_waiting(state, [event])


def _parting_shot(state: ExtendedState, command: x.PartingShot, ctx: Context) -> list[x.Event]:
    if not state.open_shots or state.exchange is not None or state.parting_shot:
        raise Refused(codes.OUT_OF_PHASE, "a parting shot follows at once a victory over an opponent")
    victim = state.open_shots.get(command.contestant)
    if victim is None:
        victors = sorted(state.open_shots)
        raise Refused(codes.NOT_THE_VICTOR, f"contestant: only {victors} may take a parting shot now")
    if not state.fighters[command.contestant].in_contest:
        raise Refused(codes.OUT_OF_CONTEST, f"contestant: {command.contestant!r} is out of the contest")
    if command.target is not None and command.target != victim:
        raise Refused(codes.BAD_TARGET, f"target: {command.contestant!r} just defeated {victim!r}")
    _controls(ctx, command.contestant)
    bid = command.bid if command.bid is not None else codes.DEFAULT_BID
    check_bid(state, command.contestant, bid)
    codes.check_exchange_switch(command.ability, command.rating, state.round)
    intent = x.Intent(action=command.action, bid=bid, ability=command.ability, rating=command.rating, targets=[victim])
    return [x.PartingShotTaken(contestant=command.contestant, intent=intent, target=victim)]
