"""Human-readable lines for the Hero Wars contest's events and sealed intents (notices, replays), naming
contestants by the names their setup gave them."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import herowars as h
from server.engine.names import NO_NAMES, Names, called, listed

CASES = {
    "win": "winner table × loser table",
    "transfer": "wins with a Critical (transfer)",
    "both_failure": "both failed: both lose the bid",
    "both_fumble": "both fumbled: both lose double the bid",
    "failure_vs_fumble": "Failure against Fumble",
    "tie": "tie settled by the GM",
}


def describe_intent(intent: h.Intent) -> str:
    bid = "default bid" if intent.bid is None else f"bid {intent.bid}"
    return f"“{intent.action}”, {bid}" if intent.action else f"no action named, {bid}"


def _face(face: int | None) -> str:
    return "no die" if face is None else str(face)


def _applied(event: h.ExchangeApplied, names: Names = NO_NAMES) -> str:
    losses = ", ".join(f"{called(names, c)} loses {n}" for c, n in event.lost.items()) or "nobody loses AP"
    parts = [f"exchange {event.exchange}: {CASES[event.case]}"]
    if event.winner is not None:
        parts.append(f"{called(names, event.winner)} wins")
    parts.append(losses)
    if event.gained:
        parts.append(f"{called(names, event.winner)} gains {event.gained}")
    if event.capped:
        parts.append("capped at three times the bid")
    if event.reason:
        parts.append(event.reason)
    return "; ".join(parts)


def describe(event: h.Event | h.Intent, names: Names = NO_NAMES) -> str:
    """The line for one event of the Hero Wars contest, or for a sealed intent, naming contestants by ``names``."""
    match event:
        case h.Intent():
            return describe_intent(event)
        case h.RoundStarted():
            return f"round {event.round} begins: {listed(names, event.order)}"
        case h.OrderSet():
            return f"order set: {listed(names, event.order)}"
        case h.ExchangeRolled():
            actor, defender = called(names, event.actor), called(names, event.defender)
            return (
                f"exchange {event.exchange}: {actor} bids {event.bid}; "
                f"{actor} rolled {_face(event.actor_face)} ({event.actor_level}), "
                f"{defender} rolled {_face(event.defender_face)} ({event.defender_level})"
            )
        case h.HeroPointSpent():
            return f"{called(names, event.contestant)} spends a hero point: {event.level}"
        case h.HeroPointPassed():
            return f"{called(names, event.contestant)} lets the result stand"
        case h.ExchangeTied():
            return f"exchange {event.exchange} is a tie: the GM settles it from the stated intents"
        case h.ExchangeApplied():
            return _applied(event, names)
        case h.ApAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts {called(names, event.contestant)}'s AP by {sign}{event.delta}: {event.reason}"
        case h.ContestDecided():
            fallen = "; ".join(f"{called(names, d.contestant)} {d.level} ({d.consequence})" for d in event.defeated)
            if event.winner is None:
                return f"the contest is decided, both fall: {fallen}"
            return f"{called(names, event.winner)} wins ({event.benefit}): {fallen}"
        case h.ContestResumed():
            return "the contest resumes"
        case _:
            assert_never(event)
