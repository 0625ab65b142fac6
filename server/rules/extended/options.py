"""The options of seed 000 beyond the exchange: final action, disengaging and rejoining, AP lending, AP
gifting, and the hero points the GM grants."""

from __future__ import annotations

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import extended as x
from server.engine.ruleset import Context
from server.rules.extended import actions, codes
from server.rules.extended.apply import progress
from server.rules.extended.roll import simple_roll
from server.rules.extended.state import ExtendedState, Fighter
from server.rules.questworlds.outcome import Consequence, outcome_for
from server.rules.questworlds.ratings import Rating

Option = x.FinalAction | x.Disengage | x.Rejoin | x.Lend | x.Gift | x.GrantHeroPoints


def decide_option(state: ExtendedState, command: Option, ctx: Context) -> list[x.Event]:
    match command:
        case x.FinalAction():
            event: x.Event = _final_action(state, command, ctx)
        case x.Disengage():
            event = _disengage(state, command, ctx)
        case x.Rejoin():
            fighter = _fighter(state, command.contestant)
            _acts_for(ctx, fighter)
            _not_decided(state)
            if not fighter.withdrawn:
                raise Refused(codes.NOT_WITHDRAWN, f"contestant: {fighter.id!r} has not withdrawn")
            event = x.Rejoined(contestant=fighter.id)
        case x.Lend():
            event = _lend(state, command, ctx)
        case x.Gift():
            event = _gift(state, command, ctx)
        case x.GrantHeroPoints():
            if not ctx.is_gm:
                raise Refused(FORBIDDEN, "only a GM may grant hero points")
            fighter = _fighter(state, command.contestant)
            if not fighter.player:
                raise Refused(
                    codes.NOT_A_PC, f"contestant: {fighter.id!r} is the GM's; the resistance has no hero points"
                )
            if command.points < 1:
                raise Refused(codes.BAD_DELTA, f"points: grant at least 1 hero point, got {command.points}")
            return [x.HeroPointsGranted(contestant=fighter.id, points=command.points, reason=command.reason)]
    return [event, *progress(state, [event])]


def check_typist(state: ExtendedState, ctx: Context) -> None:
    """Physical dice: the GM types in the faces, or a player when the GM allows it."""
    if ctx.dice.mode == "physical" and not ctx.is_gm and not state.players_type_faces:
        raise Refused(codes.TYPED_BY_GM, "physical dice: the GM types in the faces rolled at the table")


def _fighter(state: ExtendedState, contestant: str) -> Fighter:
    fighter = state.fighters.get(contestant)
    if fighter is None:
        raise Refused(codes.NO_SUCH_CONTESTANT, f"contestant: no contestant {contestant!r}")
    return fighter


def _acts_for(ctx: Context, fighter: Fighter) -> None:
    """Its player, or the GM (who types the faces at a physical table)."""
    if not (ctx.is_gm or ctx.may_act_for(fighter.id)):
        raise Refused(codes.NOT_YOUR_CONTESTANT, f"contestant: you do not control {fighter.id!r}")


def _not_decided(state: ExtendedState) -> None:
    if state.phase == "decided":
        raise Refused(codes.OUT_OF_PHASE, "the contest is decided")
    if state.exchange is not None or state.parting_shot:
        raise Refused(codes.OUT_OF_PHASE, "an exchange is under way")


def _own_turn(state: ExtendedState, fighter: Fighter) -> None:
    """An unrelated action takes the contestant's action for the round: on its turn, before it begins."""
    if not fighter.in_contest:
        raise Refused(codes.OUT_OF_CONTEST, f"contestant: {fighter.id!r} is out of the contest")
    if state.actor != fighter.id or state.current is not None or state.parting_shot:
        raise Refused(codes.OUT_OF_TURN, f"contestant: it is not {fighter.id!r}'s turn")


def _rating(fighter: Fighter, rating: str | None) -> Rating:
    return codes.parse_rating(rating if rating is not None else fighter.rating, "rating")


def _opponent(state: ExtendedState, fighter: Fighter, named: str | None, field: str) -> Fighter:
    if named is None:
        if fighter.last_opponent is not None:
            named = fighter.last_opponent
        elif not state.group:
            named = state.opponent(fighter.id)
        else:
            raise Refused(codes.NO_TARGET, f"{field}: name the opponent")
    if named not in state.opponents(fighter.id):
        raise Refused(codes.BAD_TARGET, f"{field}: {named!r} is not an opponent of {fighter.id!r}")
    return state.fighters[named]


def _final_action(state: ExtendedState, command: x.FinalAction, ctx: Context) -> x.FinalActionTaken:
    fighter = _fighter(state, command.contestant)
    _acts_for(ctx, fighter)
    check_typist(state, ctx)
    if not state.group:
        raise Refused(codes.NOT_A_GROUP, "a final action is taken in a group contest only")
    _not_decided(state)
    if not fighter.player:
        raise Refused(codes.NOT_A_PC, f"contestant: {fighter.id!r} is the GM's; the resistance takes no final action")
    if fighter.in_contest or fighter.withdrawn:
        raise Refused(codes.STILL_IN, f"contestant: {fighter.id!r} is not defeated")
    if outcome_for(fighter.ap).consequence is Consequence.DYING:
        raise Refused(codes.DYING, f"contestant: {fighter.id!r} is Dying and can take no action")
    if fighter.final_action_used:
        raise Refused(codes.FINAL_ACTION_USED, f"contestant: {fighter.id!r} has taken its one final action")
    if fighter.hero_points < 1:
        raise Refused(codes.NO_HERO_POINT, f"contestant: {fighter.id!r} has no hero point to spend")
    if command.ability is not None or command.rating is not None:
        codes.check_switch(command.ability, command.rating)
    resistance = Rating.from_value(-fighter.ap)
    roll, result = simple_roll(
        state, _rating(fighter, command.rating), resistance, command.faces, (fighter.id, "the resistance"), ctx
    )
    ap = actions.final_action_ap(fighter.starting_ap, fighter.ap, result)
    return x.FinalActionTaken(contestant=fighter.id, roll=roll, ap=ap)


def _disengage(state: ExtendedState, command: x.Disengage, ctx: Context) -> x.DisengageRolled:
    fighter = _fighter(state, command.contestant)
    _acts_for(ctx, fighter)
    check_typist(state, ctx)
    _own_turn(state, fighter)
    opponent = _opponent(state, fighter, command.opponent, "opponent")
    if command.ability is not None or command.rating is not None:
        codes.check_switch(command.ability, command.rating)
    counter = codes.parse_rating(command.resistance or opponent.rating, "resistance")
    roll, result = simple_roll(
        state, _rating(fighter, command.rating), counter, command.faces, (fighter.id, opponent.id), ctx
    )
    outcome = actions.disengage(fighter.ap, result)
    return x.DisengageRolled(
        contestant=fighter.id,
        opponent=opponent.id,
        roll=roll,
        withdrawn=outcome.withdrawn,
        transferred=outcome.transferred,
    )


def _lend(state: ExtendedState, command: x.Lend, ctx: Context) -> x.LoanResolved:
    lender = _fighter(state, command.lender)
    _acts_for(ctx, lender)
    check_typist(state, ctx)
    if command.target == lender.id:
        raise Refused(codes.SELF_LOAN, "target: a contestant cannot lend AP to itself")
    target = _fighter(state, command.target)
    _own_turn(state, lender)
    if target.side != lender.side:
        raise Refused(codes.NOT_YOUR_SIDE, f"target: {target.id!r} is not on {lender.id!r}'s side")
    if not target.in_contest:
        raise Refused(codes.OUT_OF_CONTEST, f"target: {target.id!r} is out of the contest")
    if lender.id in target.followers or lender.name in target.followers:
        raise Refused(codes.FOLLOWER_AP, f"lender: {lender.id!r}'s AP is already in {target.id!r}'s total")
    if command.ap < 1:
        raise Refused(codes.BID_TOO_LOW, f"ap: lend at least 1 AP, got {command.ap}")
    if command.ap > lender.ap:
        raise Refused(codes.BID_TOO_HIGH, f"ap: {lender.id!r} has {lender.ap} AP to lend")
    if command.ability is not None or command.rating is not None:
        codes.check_switch(command.ability, command.rating)
    roll, result = simple_roll(
        state,
        _rating(lender, command.rating),
        Rating.from_value(command.ap),
        command.faces,
        (lender.id, "the resistance"),
        ctx,
    )
    loan = actions.loan(command.ap, result)
    return x.LoanResolved(
        lender=lender.id,
        target=target.id,
        ap=command.ap,
        roll=roll,
        target_gains=loan.target_gains,
        lender_loses=loan.lender_loses,
    )


def _gift(state: ExtendedState, command: x.Gift, ctx: Context) -> x.GiftResolved:
    check_typist(state, ctx)
    _not_decided(state)
    giver = state.fighters.get(command.giver)
    if giver is not None and not giver.withdrawn:
        raise Refused(codes.IN_THE_CONTEST, f"giver: {command.giver!r} is in the contest; lend AP instead")
    recipient = _fighter(state, command.recipient)
    if not recipient.in_contest:
        raise Refused(codes.OUT_OF_CONTEST, f"recipient: {recipient.id!r} is out of the contest")
    if command.giver in recipient.followers:
        raise Refused(codes.FOLLOWER_AP, f"giver: {command.giver!r}'s AP is already in {recipient.id!r}'s total")
    rating = codes.parse_rating(command.rating, "rating")
    if command.bid < 1:
        raise Refused(codes.BID_TOO_LOW, f"bid: {command.bid} is below the minimum of 1")
    if command.bid > rating.tn:
        raise Refused(codes.BID_TOO_HIGH, f"bid: a gift's bid is at most the giver's target number, {rating.tn}")
    opponent = _opponent(state, recipient, command.opponent, "opponent")
    roll, result = simple_roll(
        state, rating, Rating.from_value(2 * command.bid), command.faces, (command.giver, "the resistance"), ctx
    )
    gifting = actions.gift(command.bid, result)
    return x.GiftResolved(
        giver=command.giver,
        recipient=recipient.id,
        opponent=opponent.id,
        bid=command.bid,
        roll=roll,
        recipient_gains=gifting.recipient_gains,
        opponent_gains=gifting.opponent_gains,
    )
