"""Rolling an exchange: the dice of both sides, their levels and the mastery bumps."""

from __future__ import annotations

from protocol.common import Dice
from protocol.rulesets import extended as x
from server.engine.ruleset import Context
from server.rules.extended import codes
from server.rules.extended.state import ExtendedState
from server.rules.questworlds.faces import typed_faces
from server.rules.questworlds.levels import apply_masteries, roll_level


def roll_exchange(state: ExtendedState, actor: str, faces: list[int | None] | None, ctx: Context) -> list[x.Event]:
    intent = state.intents.get(actor, x.Intent())
    defender = state.opponent(actor)
    actor_rating = codes.parse_rating(state.fighters[actor].rating, "rating")
    if intent.kind == "unrelated":
        if intent.resistance is None:
            return [_rolled(state, actor, defender, intent, None, (None, None), ("Failure", "Failure"), (0, 0))]
        other = codes.parse_rating(intent.resistance, "resistance")
    else:
        other = codes.parse_rating(state.fighters[defender].rating, "rating")
    ratings = (actor_rating, other)
    rolling = [r.value > 0 for r in ratings]
    typed = typed_faces(faces, rolling, (actor, defender))
    dice = ctx.dice.roll([20] * sum(rolling), typed)
    drawn = iter(dice.faces)
    sides_faces = tuple(next(drawn) if rolls else None for rolls in rolling)
    raw = [roll_level(face, r.tn) for face, r in zip(sides_faces, ratings, strict=True)]
    actor_level, defender_level = apply_masteries(raw[0], actor_rating.masteries, raw[1], other.masteries)
    return [
        _rolled(
            state,
            actor,
            defender,
            intent,
            dice,
            (sides_faces[0], sides_faces[1]),
            (codes.level_name(actor_level), codes.level_name(defender_level)),
            (actor_rating.value, other.value),
        )
    ]


def _rolled(
    state: ExtendedState,
    actor: str,
    defender: str,
    intent: x.Intent,
    dice: Dice | None,
    faces: tuple[int | None, int | None],
    levels: tuple[str, str],
    values: tuple[int, int],
) -> x.ExchangeRolled:
    return x.ExchangeRolled(
        exchange=state.exchanges + 1,
        actor=actor,
        defender=defender,
        bid=effective_bid(state, actor, intent),
        kind=intent.kind,
        parting_shot=state.parting_shot,
        dice=dice,
        actor_face=faces[0],
        defender_face=faces[1],
        actor_level=levels[0],
        defender_level=levels[1],
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
