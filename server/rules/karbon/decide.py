"""``decide`` for a Karbon scene: who may send a command, then the rule module that plays it."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import FORBIDDEN, Refused
from protocol.rulesets import karbon as k
from server.engine.ruleset import Context
from server.rules.karbon import codes, setup, stacks
from server.rules.karbon.back_out import back_out
from server.rules.karbon.round import roll_round
from server.rules.karbon.state import KarbonState, Running

MAX_CHIPS = 1_000
"""The most chips a correction leaves in a hand: far beyond what play earns (a round earns a few dozen at most),
low enough that every count stays exact for every client."""


def decide(state: KarbonState, command: k.Command, ctx: Context) -> Sequence[k.Event]:
    match command:
        case k.StartContest():
            _gm(ctx, "set up a contest")
            return setup.start_contest(state, command, ctx)
        case k.DrawHands():
            _gm(ctx, "enter the hands drawn")
            return setup.draw_hands(state, command, ctx)
        case k.ChangeChallenge():
            _gm(ctx, "change the challenge")
            return setup.change_challenge(state, command, ctx)
        case k.ChangePeril():
            _gm(ctx, "change the peril")
            return setup.change_peril(state, command)
        case k.Roll():
            contest = _running(state)
            if not contest.drawn or contest.rolled:
                raise Refused(codes.OUT_OF_PHASE, f"no round is waiting for its dice in contest {contest.number}")
            if contest.all_in is None:
                raise Refused(codes.OUT_OF_PHASE, "the agent's player first declares the risk (or the GM closes it)")
            if not ctx.is_gm:
                _agent(state, ctx)
                if ctx.dice.mode == "physical" and not state.players_type_faces:
                    raise Refused(codes.TYPED_BY_GM, "physical dice: the GM types in the faces rolled at the table")
            return roll_round(state, command, contest, ctx)
        case k.Stack() | k.EndTest():
            contest = _running(state)
            if command.side == "agent":
                _agent(state, ctx)
            else:
                _gm(ctx, "stack the narrator's chips")
            if isinstance(command, k.Stack):
                return stacks.stack(state, command, contest)
            return stacks.end_test(state, command, contest)
        case k.ChooseBreak():
            _agent(state, ctx)
            return stacks.choose_break(state, command, _running(state))
        case k.ChooseGlitch():
            _agent(state, ctx)
            return stacks.choose_glitch(state, command, _running(state))
        case k.NarratorOption():
            _gm(ctx, "pick the narrator's option")
            return stacks.narrator_option(state, command, _running(state), ctx)
        case k.ChooseAftermath():
            _agent(state, ctx)
            if not state.aftermath_due:
                raise Refused(codes.OUT_OF_PHASE, "a Blackout or Madness follows a loss at zero Fortune")
            return [k.AftermathChosen(aftermath=command.aftermath)]
        case k.SuddenDeath():
            _agent(state, ctx)
            return setup.sudden_death(state, ctx)
        case k.Adjust():
            _gm(ctx, "correct a count")
            return [_adjusted(state, command)]
        case k.BackOut():
            if not ctx.is_gm:
                _agent(state, ctx)
            return back_out(state, command, "narrator" if ctx.is_gm else "agent")


def _adjusted(state: KarbonState, command: k.Adjust) -> k.Event:
    if not command.reason.strip():
        raise Refused(codes.NO_REASON, "reason: a correction needs a reason")
    if command.delta == 0:
        raise Refused(codes.BAD_DELTA, "delta: a correction changes a count by a non-zero amount")
    if command.target == "fortune":
        now, limit = state.fortune, k.MAX_FORTUNE
        event: k.Event = k.FortuneAdjusted(delta=command.delta, reason=command.reason)
    else:
        contest = _running(state)
        side, _, pile = command.target.partition("_")
        counts = contest.chips if pile == "hand" else contest.stacks
        now, limit = counts[side], MAX_CHIPS
        event = k.ChipsChanged(
            side="agent" if side == "agent" else "narrator",
            pile="hand" if pile == "hand" else "stack",
            delta=command.delta,
            why=f"corrected: {command.reason}",
        )
        if pile == "stack" and now + command.delta >= 5:
            raise Refused(codes.BAD_DELTA, "delta: a stack holds at most four chips between payouts")
    if now + command.delta < 0:
        raise Refused(codes.BAD_DELTA, f"delta: {command.target} is {now}; it never goes below 0")
    if command.delta > 0 and now + command.delta > limit:
        raise Refused(codes.BAD_DELTA, f"delta: {command.target} is {now}; a correction takes it to {limit} at most")
    return event


def check_declaration(state: KarbonState, participant: str, payload: k.Risk, ctx: Context) -> None:
    """Any risk may be declared: all in or not."""


def _running(state: KarbonState) -> Running:
    if state.contest is None:
        raise Refused(codes.OUT_OF_PHASE, "no contest is being played")
    return state.contest


def _gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def _agent(state: KarbonState, ctx: Context) -> None:
    if not ctx.may_act_for(state.agent):
        raise Refused(codes.NOT_YOUR_AGENT, f"only {state.name.strip() or state.agent}'s player makes this choice")
