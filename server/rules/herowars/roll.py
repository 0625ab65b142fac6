"""Rolling a Hero Wars exchange: both sides' dice, their levels and the mastery bumps (no bump-down)."""

from __future__ import annotations

from protocol.rulesets import herowars as h
from server.engine.ruleset import Context
from server.rules.herowars import codes
from server.rules.herowars.state import HerowarsState
from server.rules.questworlds.faces import typed_faces
from server.rules.questworlds.levels import apply_masteries, roll_level
from server.rules.questworlds.setup import parse_rating


def roll_exchange(state: HerowarsState, actor: str, faces: list[int | None] | None, ctx: Context) -> h.Event:
    defender = state.opponent(actor)
    ratings = [parse_rating(state.fighters[c].rating, "rating") for c in (actor, defender)]
    rolling = [r.rolls for r in ratings]
    dice = ctx.dice.roll([20] * sum(rolling), typed_faces(faces, rolling, (actor, defender)))
    drawn = iter(dice.faces)
    face = [next(drawn) if rolls else None for rolls in rolling]
    raw = [roll_level(f, r.tn) for f, r in zip(face, ratings, strict=True)]
    levels = apply_masteries(raw[0], ratings[0].masteries, raw[1], ratings[1].masteries, bump_down=False)
    return h.ExchangeRolled(
        exchange=state.exchanges + 1,
        actor=actor,
        defender=defender,
        bid=effective_bid(state, actor),
        dice=dice if dice.faces else None,
        actor_face=face[0],
        defender_face=face[1],
        actor_level=levels[0].label,
        defender_level=levels[1].label,
        both_masteries=all(r.masteries > 0 for r in ratings),
    )


def effective_bid(state: HerowarsState, actor: str) -> int:
    """The declared bid (3 when none was given); a GM-run contestant never stakes more than it has left."""
    intent = state.intents.get(actor, h.Intent())
    bid = intent.bid if intent.bid is not None else codes.DEFAULT_BID
    fighter = state.fighters[actor]
    return bid if fighter.player else min(bid, max(fighter.ap, 1))
