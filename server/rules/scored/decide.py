"""``decide`` for the scored sequence: validate a command against the state, return the events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from protocol.errors import Refused
from protocol.rulesets import scored as s
from server.engine.ruleset import Context
from server.rules.questworlds.ratings import Rating
from server.rules.scored import codes
from server.rules.scored.points import assist_resistance, successes
from server.rules.scored.resolve import resolve, resolve_if_ready
from server.rules.scored.settle import settle
from server.rules.scored.state import ScoredState


def decide(state: ScoredState, command: s.Command, ctx: Context) -> Sequence[s.Event]:
    match command:
        case s.StartRound():
            return _start_round(state, command, ctx)
        case s.Roll():
            return _roll_round(state, command, ctx)
        case s.SpendStoryPoint() | s.KeepStoryPoints():
            codes.member(state, command.contestant)
            codes.acts_for(ctx, command.contestant)
            pending = state.pending
            spent = isinstance(command, s.SpendStoryPoint)
            if pending is None or command.contestant not in (pending.may_spend if spent else pending.waiting):
                holds = state.members[command.contestant].story_points > 0
                if spent and holds and pending is not None and command.contestant in pending.waiting:
                    raise Refused(
                        codes.NO_STORY_POINT,
                        f"contestant: no story point {command.contestant!r} holds could change this contest",
                    )
                raise Refused(
                    codes.NO_STORY_POINT, f"contestant: {command.contestant!r} has no story point to spend now"
                )
            event: s.Event = (
                s.StoryPointSpent(contestant=command.contestant)
                if spent
                else s.StoryPointsKept(contestant=command.contestant)
            )
            return resolve_if_ready(state, [event])
        case s.Confirm():
            codes.gm(ctx, "resolve a rolled contest")
            if state.pending is None:
                raise Refused(codes.OUT_OF_PHASE, "no rolled contest to resolve")
            return resolve(state)
        case s.Assist():
            return _assist(state, command, ctx)
        case s.ShiftPoints():
            return _shift(state, command, ctx)
        case s.EngageFollower():
            return _engage(state, command, ctx)
        case s.PartingShot():
            return _parting_shot(state, command, ctx)
        case s.Join():
            return _join(state, command, ctx)
        case s.Adjust():
            codes.gm(ctx, "adjust resolution points")
            target = codes.member(state, command.contestant)
            if not command.reason.strip():
                raise Refused(codes.NO_REASON, "reason: an adjustment needs a reason")
            if command.delta == 0:
                raise Refused(codes.BAD_DELTA, "delta: an adjustment changes the tally by a non-zero amount")
            if state.phase not in ("between", "decided"):
                raise Refused(
                    codes.OUT_OF_PHASE, f"the GM corrects tallies between rounds (the sequence is {state.phase})"
                )
            if state.tallies[target.tally] + command.delta > s.MAX_POINTS:
                raise Refused(
                    codes.BAD_DELTA,
                    f"delta: {command.contestant!r}'s tally would pass {s.MAX_POINTS:,} resolution points",
                )
            adjusted = s.PointsAdjusted(contestant=command.contestant, delta=command.delta, reason=command.reason)
            return [adjusted, *settle(state, [adjusted], {target.tally: command.delta})]
        case _:
            assert_never(command)


def check_declaration(state: ScoredState, participant: str, payload: s.Tactic, ctx: Context) -> None:
    codes.active(state, participant, "participant")
    codes.check_switch(payload.ability, payload.rating)


def _start_round(state: ScoredState, command: s.StartRound, ctx: Context) -> list[s.Event]:
    codes.gm(ctx, "start a round")
    codes.between_rounds(state, "a new round")
    first = codes.active(state, command.initiative, "initiative")
    second = codes.active(state, command.responder, "responder")
    for member, field in ((first, "initiative"), (second, "responder")):
        if not member.rolls_rounds:
            raise Refused(codes.NOT_IN_ROUNDS, f"{field}: {member.id!r} is a {member.role} and rolls no rounds")
    if first.side == second.side:
        raise Refused(codes.SAME_SIDE, f"responder: {second.id!r} is on {first.id!r}'s side")
    return [s.RoundStarted(round=state.round + 1, initiative=first.id, responder=second.id)]


def _rating(state: ScoredState, contestant: str, override: str | None, field: str) -> Rating:
    if override is not None:
        return codes.parse_rating(override, field)
    return codes.parse_rating(state.members[contestant].rating, field)


def _rolled(
    state: ScoredState,
    ctx: Context,
    kind: s.ContestKind,
    sides: tuple[tuple[str | None, Rating], tuple[str | None, Rating]],
    faces: list[int] | None,
    target: str | None = None,
    action: str = "",
) -> list[s.Event]:
    """Roll a simple contest of two parties, then resolve it at once unless someone may spend story points."""
    codes.types_faces(state, ctx)
    dice = ctx.dice.roll([20, 20], faces)
    parties = [
        s.Party(contestant=who, rating=str(rating), face=face, successes=successes(face, rating))
        for (who, rating), face in zip(sides, dice.faces, strict=True)
    ]
    rolled = s.ContestRolled(
        kind=kind, round=state.round, first=parties[0], second=parties[1], dice=dice, target=target, action=action
    )
    return resolve_if_ready(state, [rolled])


def _roll_round(state: ScoredState, command: s.Roll, ctx: Context) -> list[s.Event]:
    if state.phase != "ready" or state.initiative is None or state.responder is None:
        raise Refused(codes.OUT_OF_PHASE, f"no round to roll: the sequence is {state.phase}")
    if not (ctx.is_gm or ctx.may_act_for(state.initiative) or ctx.may_act_for(state.responder)):
        raise Refused(codes.NOT_YOUR_SEAT, "only the GM or the player of a contestant in the round rolls it")
    sides = tuple(
        (c, _rating(state, c, state.tactics[c].rating if c in state.tactics else None, "rating"))
        for c in (state.initiative, state.responder)
    )
    return _rolled(state, ctx, "round", (sides[0], sides[1]), command.faces)


def _assist(state: ScoredState, command: s.Assist, ctx: Context) -> list[s.Event]:
    helper = codes.active(state, command.helper, "helper")
    codes.acts_for(ctx, command.helper, "helper")
    if command.helper == command.beneficiary:
        raise Refused(codes.ASSIST_SELF, "beneficiary: an assist helps someone else, never yourself")
    beneficiary = codes.active(state, command.beneficiary, "beneficiary")
    if beneficiary.side != helper.side:
        raise Refused(codes.NOT_A_TEAMMATE, f"beneficiary: {command.beneficiary!r} is not on {command.helper!r}'s side")
    if beneficiary.tally == helper.tally:
        raise Refused(
            codes.ASSIST_SELF,
            f"beneficiary: {command.helper!r} shares {command.beneficiary!r}'s tally: the assist would help itself",
        )
    codes.between_rounds(state, "an assist")
    codes.check_switch(command.ability, command.rating)
    earlier = state.assists.get(beneficiary.tally, 0)
    resistance = assist_resistance(codes.parse_rating(state.assist_resistance, "assist_resistance"), earlier)
    mine = _rating(state, command.helper, command.rating, "rating")
    return _rolled(
        state,
        ctx,
        "assist",
        ((command.helper, mine), (None, resistance)),
        command.faces,
        command.beneficiary,
        command.action,
    )


def _shift(state: ScoredState, command: s.ShiftPoints, ctx: Context) -> list[s.Event]:
    codes.active(state, command.contestant)
    codes.acts_for(ctx, command.contestant)
    follower = codes.member(state, command.follower, "follower")
    if follower.follower_of != command.contestant or follower.role != "secondary":
        raise Refused(
            codes.NOT_SECONDARY,
            f"follower: {command.follower!r} is not {command.contestant!r}'s follower as a secondary contestant",
        )
    codes.active(state, command.follower, "follower")
    if state.phase == "decided":
        raise Refused(codes.OUT_OF_PHASE, "the sequence is decided")
    held = state.rp(command.contestant)
    if not 1 <= command.points <= held:
        raise Refused(
            codes.BAD_POINTS,
            f"points: {command.points} is not between 1 and the {held} RP against {command.contestant!r}",
        )
    shifted = s.PointsShifted(contestant=command.contestant, follower=command.follower, points=command.points)
    return [shifted, *settle(state, [shifted], {follower.tally: command.points})]


def _engage(state: ScoredState, command: s.EngageFollower, ctx: Context) -> list[s.Event]:
    opponent = codes.active(state, command.opponent, "opponent")
    codes.acts_for(ctx, command.opponent, "opponent")
    if opponent.role == "supporter":  # §5.2.1.3: it "does not directly engage your opponents"
        raise Refused(
            codes.SUPPORTER_DOES_NOT_ENGAGE,
            f"opponent: {command.opponent!r} is a supporter: it assists, and engages no opponent",
        )
    follower = codes.member(state, command.follower, "follower")
    if follower.follower_of is None:
        raise Refused(codes.NOT_A_FOLLOWER, f"follower: {command.follower!r} is nobody's follower")
    codes.active(state, command.follower, "follower")
    if follower.side == opponent.side:
        raise Refused(codes.SAME_SIDE, f"follower: {command.follower!r} is on {command.opponent!r}'s side")
    codes.between_rounds(state, "engaging a follower")
    busy = state.engaged_with(command.opponent)
    if busy:  # §5.2.1.3: followers are removed "by otherwise unengaged opponents"
        raise Refused(
            codes.OTHERWISE_ENGAGED,
            f"opponent: {command.opponent!r} is engaged in the rounds with {', '.join(map(repr, busy))}: "
            "only an opponent otherwise unengaged removes a follower",
        )
    codes.check_switch(command.ability, command.rating)
    # what the opponent brings is named by whoever controls it: the GM's resistance, or a player's ability
    mine = _rating(state, command.opponent, command.rating, "rating")
    theirs = _rating(state, command.follower, None, "rating")
    return _rolled(
        state,
        ctx,
        "engage",
        ((command.opponent, mine), (command.follower, theirs)),
        command.faces,
        action=command.action,
    )


def _parting_shot(state: ScoredState, command: s.PartingShot, ctx: Context) -> list[s.Event]:
    shooter = codes.active(state, command.shooter, "shooter")
    codes.acts_for(ctx, command.shooter, "shooter")
    if shooter.role == "supporter":  # §5.2.1.3: it "does not directly engage your opponents"
        raise Refused(
            codes.SUPPORTER_DOES_NOT_ENGAGE,
            f"shooter: {command.shooter!r} is a supporter: it assists, and takes no shot at an opponent",
        )
    if state.outcome is not None and shooter.side == state.outcome.loser:
        raise Refused(codes.BEATEN, f"shooter: the sequence is decided and {command.shooter!r}'s side is beaten")
    target = codes.member(state, command.target, "target")
    if target.out is None or target.out == "engaged":
        raise Refused(codes.NOT_TAKEN_OUT, f"target: {command.target!r} has not been taken out by resolution points")
    if command.target not in state.taken_out:
        raise Refused(
            codes.SHOT_TOO_LATE, f"target: {command.target!r} went out before this round: the chance has passed"
        )
    if target.side == shooter.side:
        raise Refused(codes.SAME_SIDE, f"target: {command.target!r} is on {command.shooter!r}'s side")
    if f"{command.shooter}>{command.target}" in state.shots:
        raise Refused(
            codes.SHOT_TAKEN, f"shooter: {command.shooter!r} has taken its parting shot at {command.target!r}"
        )
    if state.phase not in ("between", "decided"):
        raise Refused(codes.OUT_OF_PHASE, f"a parting shot happens between rounds (the sequence is {state.phase})")
    codes.check_switch(command.ability, command.rating)
    mine = _rating(state, command.shooter, command.rating, "rating")
    theirs = _rating(state, command.target, None, "rating")
    return _rolled(
        state,
        ctx,
        "parting_shot",
        ((command.shooter, mine), (command.target, theirs)),
        command.faces,
        action=command.action,
    )


def _join(state: ScoredState, command: s.Join, ctx: Context) -> list[s.Event]:
    newcomer = codes.member(state, command.contestant)
    codes.acts_for(ctx, command.contestant)
    if newcomer.present:
        raise Refused(codes.ALREADY_IN, f"contestant: {command.contestant!r} is already in the sequence")
    comrade = codes.active(state, command.comrade, "comrade")
    if comrade.side != newcomer.side:
        raise Refused(codes.NOT_A_TEAMMATE, f"comrade: {command.comrade!r} is not on {command.contestant!r}'s side")
    if not comrade.main:  # §5.2.7: "two PCs may face off against the same opposition, both sharing the same tally"
        raise Refused(
            codes.NOT_A_COMRADE,
            f"comrade: {command.comrade!r} is a follower ({comrade.role}): a late arrival shares the tally of a "
            "main contestant who rolls the rounds",
        )
    if state.phase == "decided":
        raise Refused(codes.OUT_OF_PHASE, "the sequence is decided")
    return [s.Joined(contestant=command.contestant, comrade=command.comrade)]
