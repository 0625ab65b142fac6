"""Rolling: the dice of both sides of an exchange or a simple contest, their levels and the mastery bumps."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.common import Dice
from protocol.rulesets import extended as x
from server.engine.ruleset import Context
from server.rules.extended import codes
from server.rules.extended.state import ExtendedState
from server.rules.questworlds.faces import typed_faces
from server.rules.questworlds.levels import Level, apply_masteries, roll_level
from server.rules.questworlds.outcome import SimpleContestResult, simple_contest_result
from server.rules.questworlds.ratings import Rating


@dataclass(frozen=True)
class Pair:
    """Two sides rolled against each other: the dice, each side's face (None: no die) and final level."""

    dice: Dice | None
    faces: tuple[int | None, int | None]
    levels: tuple[Level, Level]


def roll_pair(
    ratings: tuple[Rating, Rating], faces: list[int | None] | None, names: tuple[str, str], ctx: Context
) -> Pair:
    """Both sides' d20 (a value of 0 or less rolls none), then the mastery bumps."""
    rolling = [r.value > 0 for r in ratings]
    typed = typed_faces(faces, rolling, names)
    dice = ctx.dice.roll([20] * sum(rolling), typed)
    drawn = iter(dice.faces)
    sides_faces = (next(drawn) if rolling[0] else None, next(drawn) if rolling[1] else None)
    raw = [roll_level(face, r.tn) for face, r in zip(sides_faces, ratings, strict=True)]
    levels = apply_masteries(raw[0], ratings[0].masteries, raw[1], ratings[1].masteries)
    return Pair(dice, sides_faces, levels)


def simple_roll(
    state: ExtendedState,
    rating: Rating,
    resistance: Rating,
    faces: list[int | None] | None,
    names: tuple[str, str],
    ctx: Context,
) -> tuple[x.SimpleRoll, SimpleContestResult]:
    """A simple contest of ``rating`` against ``resistance``, as the acting side's result."""
    pair = roll_pair((rating, resistance), faces, names, ctx)
    result = simple_contest_result(pair.levels[0], pair.faces[0], pair.levels[1], pair.faces[1], state.better_roll)
    rolled = x.SimpleRoll(
        dice=pair.dice,
        faces=list(pair.faces),
        levels=[level.label for level in pair.levels],
        resistance=str(resistance),
        result=str(result),
    )
    return rolled, result


def roll_exchange(
    state: ExtendedState, actor: str, defender: str, faces: list[int | None] | None, ctx: Context
) -> list[x.Event]:
    intent = state.shot_intent if state.shooter == actor and state.shot_intent else state.intent(actor)
    actor_rating = codes.parse_rating(state.fighters[actor].rating, "rating")
    if intent.kind == "unrelated":
        if intent.resistance is None:
            return [_rolled(state, actor, defender, intent, Pair(None, (None, None), (Level.FAILURE,) * 2), (0, 0))]
        other = codes.parse_rating(intent.resistance, "resistance")
    else:
        other = codes.parse_rating(state.fighters[defender].rating, "rating")
    pair = roll_pair((actor_rating, other), faces, (actor, defender or "the resistance"), ctx)
    return [_rolled(state, actor, defender, intent, pair, (actor_rating.value, other.value))]


def _rolled(
    state: ExtendedState, actor: str, defender: str, intent: x.Intent, pair: Pair, values: tuple[int, int]
) -> x.ExchangeRolled:
    return x.ExchangeRolled(
        exchange=state.exchanges + 1,
        actor=actor,
        defender=defender,
        bid=effective_bid(state, actor, intent),
        kind=intent.kind,
        parting_shot=state.parting_shot,
        dice=pair.dice,
        actor_face=pair.faces[0],
        defender_face=pair.faces[1],
        actor_level=codes.level_name(pair.levels[0]),
        defender_level=codes.level_name(pair.levels[1]),
        actor_value=values[0],
        defender_value=values[1],
        resistance=intent.resistance if intent.kind == "unrelated" else None,
    )


def effective_bid(state: ExtendedState, actor: str, intent: x.Intent) -> int:
    """The declared bid (3 when none was given); a GM-run contestant never stakes more than it has left."""
    bid = intent.bid if intent.bid is not None else codes.DEFAULT_BID
    fighter = state.fighters[actor]
    if not fighter.player:
        bid = min(bid, max(fighter.ap, 1))
    return bid
