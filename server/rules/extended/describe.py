"""Human-readable lines for the extended contest's events and sealed intents (notices, replays)."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import extended as x
from server.engine.names import NO_NAMES, Names


def describe_intent(intent: x.Intent) -> str:
    bid = "default bid" if intent.bid is None else f"bid {intent.bid}"
    parts = [f"“{intent.action}”" if intent.action else "no action named", bid]
    if intent.kind != "normal":
        parts.append(intent.kind)
    if intent.ability is not None:
        parts.append(f"switching to {intent.ability} {intent.rating or ''}".rstrip())
    if intent.resistance is not None:
        parts.append(f"against {intent.resistance}")
    if intent.targets:
        parts.append(f"{intent.daring}, against {', '.join(intent.targets)}")
    return ", ".join(parts)


def _roll(roll: x.SimpleRoll, against: str = "the resistance") -> str:
    faces = " against ".join(f"{_face(f)} ({level})" for f, level in zip(roll.faces, roll.levels, strict=True))
    resistance = f"{against}'s rating" if roll.resistance is None else roll.resistance
    return f"{faces} vs {resistance}: {roll.result}"


def _decided(event: x.ContestDecided) -> str:
    if event.winner is not None:
        return f"{event.winner} wins ({event.level} victory over {event.loser}): {event.consequence}"
    own = "; ".join(
        f"{o.contestant} {o.level} {o.result} ({o.consequence or o.benefit})"
        for o in event.outcomes
        if o.level is not None
    )
    sides = "; ".join(f"side {s.side}: {s.level} {s.result}" for s in event.sides if s.level is not None)
    head = f"side {event.winning_side} wins" if event.winning_side else f"the contest is decided: {event.level}"
    return "; ".join(part for part in (head, own, sides) if part)


def _face(face: int | None) -> str:
    return "no die" if face is None else str(face)


def describe(event: x.Event | x.Intent, names: Names = NO_NAMES) -> str:
    """The line for one event of the extended contest, or for a sealed intent."""
    match event:
        case x.Intent():
            return describe_intent(event)
        case x.RoundStarted():
            return f"round {event.round} begins: {', '.join(event.order)}"
        case x.OrderSet():
            by = f" by {event.mode}" if event.mode else ""
            return f"order set{by}: {', '.join(event.order)}"
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
            return f"{event.contestant} lets the result stand"
        case x.ExchangeApplied():
            return f"exchange {event.exchange}: {event.result}"
        case x.ApAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts {event.contestant}'s AP by {sign}{event.delta}: {event.reason}"
        case x.ContestDecided():
            return _decided(event)
        case x.PartingShotTaken():
            return f"{event.contestant} takes a parting shot: {describe_intent(event.intent)}"
        case x.ContestResumed():
            return f"{event.contestant} is back in the contest"
        case x.PartingShotDeclined():
            return f"{event.contestant} takes no parting shot"
        case x.DaringRanked():
            return f"the GM ranks {event.contestant}'s action {event.daring}"
        case x.Delayed():
            return f"{event.contestant} delays"
        case x.JumpedIn():
            return f"{event.contestant} jumps back in"
        case x.ChangeAllowed():
            return f"the GM lets {event.contestant} change its action"
        case x.IntentChanged():
            return f"{event.contestant} changes its action: {describe_intent(event.intent)}"
        case x.TurnPassed():
            return f"{event.contestant} passes its turn"
        case x.FinalActionTaken():
            return f"{event.contestant} spends a hero point on a final action: {_roll(event.roll)}; now {event.ap} AP"
        case x.DisengageRolled():
            left = "withdraws" if event.withdrawn else f"stays and gives {event.opponent} {event.transferred} AP"
            roll = _roll(event.roll, event.opponent)
            return f"{event.contestant} tries to disengage from {event.opponent}: {roll}; {left}"
        case x.Rejoined():
            return f"{event.contestant} rejoins the contest"
        case x.LoanResolved():
            return (
                f"{event.lender} lends {event.ap} AP to {event.target}: {_roll(event.roll)}; "
                f"{event.target} {event.target_gains:+d}, {event.lender} -{event.lender_loses}"
            )
        case x.GiftResolved():
            return (
                f"{event.giver} gives {event.recipient} a bid of {event.bid}: {_roll(event.roll)}; "
                f"{event.recipient} +{event.recipient_gains}, {event.opponent} +{event.opponent_gains}"
            )
        case x.HeroPointsGranted():
            if event.contestant is None:
                return "the GM grants hero points"
            reason = f": {event.reason}" if event.reason else ""
            return f"the GM grants {event.contestant} {event.points} hero point(s){reason}"
        case _:
            assert_never(event)
