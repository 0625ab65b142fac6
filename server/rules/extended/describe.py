"""Human-readable lines for the extended contest's events and sealed intents (notices, replays)."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import extended as x


def describe_intent(intent: x.Intent) -> str:
    bid = "default bid" if intent.bid is None else f"bid {intent.bid}"
    parts = [f"“{intent.action}”" if intent.action else "no action named", bid]
    if intent.kind != "normal":
        parts.append(intent.kind)
    if intent.ability is not None:
        parts.append(f"switching to {intent.ability} {intent.rating or ''}".rstrip())
    if intent.resistance is not None:
        parts.append(f"against {intent.resistance}")
    return ", ".join(parts)


def _face(face: int | None) -> str:
    return "no die" if face is None else str(face)


def describe(event: x.Event | x.Intent) -> str:
    """The line for one event of the extended contest, or for a sealed intent."""
    match event:
        case x.Intent():
            return describe_intent(event)
        case x.RoundStarted():
            return f"round {event.round} begins: {', '.join(event.order)}"
        case x.OrderSet():
            return f"order set: {', '.join(event.order)}"
        case x.BidProposed():
            return f"the GM proposes a bid of {event.bid} for {event.contestant}"
        case x.BidAccepted():
            return f"{event.contestant} accepts a bid of {event.bid}"
        case x.ExchangeRolled():
            shot = " (parting shot)" if event.parting_shot else ""
            return (
                f"exchange {event.exchange}{shot}: {event.actor} bids {event.bid}; "
                f"{event.actor} rolled {_face(event.actor_face)} ({event.actor_level}), "
                f"{event.defender} rolled {_face(event.defender_face)} ({event.defender_level})"
            )
        case x.HeroPointSpent():
            return f"{event.contestant} spends a hero point: {event.level}"
        case x.HeroPointPassed():
            return f"{event.contestant} keeps its hero point"
        case x.ExchangeApplied():
            return f"exchange {event.exchange}: {event.result}"
        case x.ApAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts {event.contestant}'s AP by {sign}{event.delta}: {event.reason}"
        case x.ContestDecided():
            if event.winner is None:
                return f"the contest is decided: {event.level}"
            return f"{event.winner} wins ({event.level} victory over {event.loser}): {event.consequence}"
        case x.PartingShotTaken():
            return f"{event.contestant} takes a parting shot: {describe_intent(event.intent)}"
        case x.ContestResumed():
            return f"{event.contestant} is back in the contest"
        case _:
            assert_never(event)
