"""The GM sets up a contest of the scene and changes what may change mid-contest (challenge, peril)."""

from __future__ import annotations

from protocol.errors import Refused
from protocol.rulesets import karbon as k
from server.engine.ruleset import Context
from server.rules.karbon import codes, dice
from server.rules.karbon.draws import by_name, distinct_from, draw
from server.rules.karbon.state import KarbonState, Running

MAX_LEVEL = 15  # a hand never holds more than the main pool
MAX_CHALLENGE = 15
MAX_CONSEQUENCE = 20
MAX_PERIL = 2  # the narrator assigns zero to two dice; injuries add to it
MAX_INJURIES = 10
MAX_RUNNING_PERIL = 20


def bounded(value: int, low: int, high: int, field: str) -> int:
    if not low <= value <= high:
        raise Refused(codes.BAD_STATS, f"{field}: {value} is not between {low} and {high}")
    return value


def start_contest(state: KarbonState, command: k.StartContest, ctx: Context) -> list[k.Event]:
    _between(state)
    challenge = _one_of(command.challenge, command.challenge_guide, "challenge")
    if command.challenge_guide is not None:
        bounded(command.challenge_guide.factors, 0, MAX_CHALLENGE, "challenge_guide.factors")
        challenge = dice.challenge(command.challenge_guide)
    consequence = _one_of(command.consequence, command.consequence_guide, "consequence")
    guide = command.consequence_guide
    if guide is not None:
        for field, value, high in [
            ("major_extra", guide.major_extra, MAX_CONSEQUENCE),
            ("profiles", guide.profiles, MAX_CONSEQUENCE),
            ("assets", guide.assets, MAX_CONSEQUENCE),
            ("fictional", guide.fictional, 2),
        ]:
            bounded(value, 0, high, f"consequence_guide.{field}")
        if guide.major_extra and guide.scope != "major":
            raise Refused(codes.BAD_STATS, "consequence_guide.major_extra: only a major contest needs more wins")
        consequence = dice.consequence(guide)
    started = k.ContestStarted(
        contest=state.contests + 1,
        goal=command.goal,
        ability=command.ability,
        level=bounded(command.level, 0, MAX_LEVEL, "level"),
        challenge=bounded(challenge, 1, MAX_CHALLENGE, "challenge"),
        consequence=bounded(consequence, 1, MAX_CONSEQUENCE, "consequence"),
        peril=bounded(command.peril, 0, MAX_PERIL, "peril") + bounded(command.injuries, 0, MAX_INJURIES, "injuries"),
    )
    return _opened(state, started, ctx)


def sudden_death(state: KarbonState, ctx: Context) -> list[k.Event]:
    _between(state)
    last, previous = state.last_outcome, state.previous
    if last is None or previous is None or last.outcome != "unclear" or last.contest != state.contests:
        raise Refused(codes.NOT_UNCLEAR, "sudden death follows a contest that ended in a tie")
    started = k.ContestStarted(
        contest=state.contests + 1,
        goal=previous.goal,
        ability=previous.ability,
        level=previous.level,
        challenge=previous.challenge,
        consequence=1,
        peril=previous.peril,
        sudden_death=True,
    )
    return _opened(state, started, ctx)


def _opened(state: KarbonState, started: k.ContestStarted, ctx: Context) -> list[k.Event]:
    """A contest's first events: its stats, and its hands when they are drawn at random."""
    if by_name(state, ctx):
        return [started]
    pool = state.ids("pool")
    picked, roll = draw(pool, started.level + started.challenge, None, False, ctx, "pool")
    agent = min(started.level, len(pool))
    return [started, k.HandsDrawn(agent=picked[:agent], narrator=picked[agent:], roll=roll), k.RoundStarted(round=1)]


def draw_hands(state: KarbonState, command: k.DrawHands, ctx: Context) -> list[k.Event]:
    contest = state.contest
    if contest is None or contest.drawn:
        raise Refused(codes.OUT_OF_PHASE, "hands are drawn once, as a contest starts")
    if not by_name(state, ctx):
        raise Refused(codes.DRAWS_RANDOM, "agent, narrator: this scene draws hands at random")
    pool = state.ids("pool")
    agent = distinct_from(pool, command.agent, min(contest.level, len(pool)), "agent")
    rest = [d for d in pool if d not in agent]
    narrator = distinct_from(rest, command.narrator, min(contest.challenge, len(rest)), "narrator")
    return [k.HandsDrawn(agent=agent, narrator=narrator), k.RoundStarted(round=1)]


def change_challenge(state: KarbonState, command: k.ChangeChallenge, ctx: Context) -> list[k.Event]:
    contest = _running(state)
    challenge = bounded(command.challenge, 1, MAX_CHALLENGE, "challenge")
    changed = k.ChallengeChanged(challenge=challenge, reason=command.reason)
    delta = challenge - contest.challenge
    if delta == 0:
        raise Refused(codes.BAD_STATS, f"challenge: it is {challenge} already")
    if not contest.drawn:
        if command.dice is not None:
            raise Refused(codes.WRONG_COUNT, "dice: the hands are not drawn yet; the draw takes the new challenge")
        return [changed]
    if delta > 0:
        pool = state.ids("pool")
        if not pool:
            raise Refused(codes.POOL_EMPTY, "challenge: the main pool is empty; no die can join the narrator's hand")
        picked, roll = draw(pool, delta, command.dice, by_name(state, ctx), ctx, "dice")
        return [changed, k.DiceMoved(dice=picked, to="narrator", why="the challenge rises", roll=roll)]
    hand = state.ids("narrator")
    returned = distinct_from(hand, command.dice or [], min(-delta, len(hand)), "dice")
    moved = [k.DiceMoved(dice=returned, to="pool", why="the challenge falls")] if returned else []
    return [changed, *moved]


def change_peril(state: KarbonState, command: k.ChangePeril) -> list[k.Event]:
    contest = _running(state)
    peril = bounded(command.peril, 0, MAX_RUNNING_PERIL, "peril")
    if peril == contest.peril:
        raise Refused(codes.BAD_STATS, f"peril: it is {peril} already")
    return [k.PerilChanged(peril=peril, reason=command.reason)]


def _one_of(value: int | None, guide: object | None, field: str) -> int:
    if (value is None) == (guide is None):
        raise Refused(codes.BAD_STATS, f"{field}, {field}_guide: give exactly one of them")
    return value if value is not None else 0


def _between(state: KarbonState) -> None:
    if state.contest is not None:
        raise Refused(codes.OUT_OF_PHASE, f"contest {state.contest.number} is still being played")
    if state.aftermath_due:
        raise Refused(codes.OUT_OF_PHASE, "the player first picks a Blackout or a Moment of Madness")


def _running(state: KarbonState) -> Running:
    if state.contest is None:
        raise Refused(codes.OUT_OF_PHASE, "no contest is being played")
    return state.contest
