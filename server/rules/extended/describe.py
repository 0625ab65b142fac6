"""Human-readable lines for the extended contest's events and sealed intents (notices, replays).

Lines name contestants by the names their setup gave them (``names``). The texts the rules stored with ids in
them (an applied exchange's result) are named as they are read, so no stored event changes."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import extended as x
from server.engine.names import NO_NAMES, Names, called, listed, named_text


def describe_intent(intent: x.Intent, names: Names = NO_NAMES) -> str:
    bid = "default bid" if intent.bid is None else f"bid {intent.bid}"
    parts = [f"“{intent.action}”" if intent.action else "no action named", bid]
    if intent.kind != "normal":
        parts.append(intent.kind)
    if intent.ability is not None:
        parts.append(f"switching to {intent.ability} {intent.rating or ''}".rstrip())
    if intent.resistance is not None:
        parts.append(f"against {intent.resistance}")
    if intent.targets:
        parts.append(f"{intent.daring}, against {listed(names, intent.targets)}")
    return ", ".join(parts)


def _roll(roll: x.SimpleRoll, against: str = "the resistance") -> str:
    """A simple contest's roll; ``against``: who (by name) rolled against the acting side."""
    faces = " against ".join(f"{_face(f)} ({level})" for f, level in zip(roll.faces, roll.levels, strict=True))
    resistance = f"{against}'s rating" if roll.resistance is None else roll.resistance
    return f"{faces} vs {resistance}: {roll.result}"


def _decided(event: x.ContestDecided, names: Names = NO_NAMES) -> str:
    if event.winner is not None:
        return (
            f"{called(names, event.winner)} wins ({event.level} victory over {called(names, event.loser)}): "
            f"{event.consequence}"
        )
    own = "; ".join(
        f"{called(names, o.contestant)} {o.level} {o.result} ({o.consequence or o.benefit})"
        for o in event.outcomes
        if o.level is not None
    )
    sides = "; ".join(f"side {called(names, s.side)}: {s.level} {s.result}" for s in event.sides if s.level is not None)
    head = (
        f"side {called(names, event.winning_side)} wins"
        if event.winning_side
        else f"the contest is decided: {event.level}"
    )
    return "; ".join(part for part in (head, own, sides) if part)


def _face(face: int | None) -> str:
    return "no die" if face is None else str(face)


def describe(event: x.Event | x.Intent, names: Names = NO_NAMES) -> str:
    """The line for one event of the extended contest, or for a sealed intent, naming contestants by ``names``."""
    match event:
        case x.Intent():
            return describe_intent(event, names)
        case x.RoundStarted():
            return f"round {event.round} begins: {listed(names, event.order)}"
        case x.OrderSet():
            by = f" by {event.mode}" if event.mode else ""
            return f"order set{by}: {listed(names, event.order)}"
        case x.BidProposed():
            return f"the GM proposes a bid of {event.bid} for {called(names, event.contestant)}"
        case x.BidAccepted():
            return f"{called(names, event.contestant)} accepts a bid of {event.bid}"
        case x.ExchangeRolled():
            shot = " (parting shot)" if event.parting_shot else ""
            actor, defender = called(names, event.actor), called(names, event.defender)
            return (
                f"exchange {event.exchange}{shot}: {actor} bids {event.bid}; "
                f"{actor} rolled {_face(event.actor_face)} ({event.actor_level}), "
                f"{defender} rolled {_face(event.defender_face)} ({event.defender_level})"
            )
        case x.HeroPointSpent():
            return f"{called(names, event.contestant)} spends a hero point: {event.level}"
        case x.HeroPointPassed():
            return f"{called(names, event.contestant)} lets the result stand"
        case x.ExchangeApplied():
            return f"exchange {event.exchange}: {named_text(event.result, names)}"
        case x.ApAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts {called(names, event.contestant)}'s AP by {sign}{event.delta}: {event.reason}"
        case x.ContestDecided():
            return _decided(event, names)
        case x.PartingShotTaken():
            return f"{called(names, event.contestant)} takes a parting shot: {describe_intent(event.intent, names)}"
        case x.ContestResumed():
            return f"{called(names, event.contestant)} is back in the contest"
        case x.PartingShotDeclined():
            return f"{called(names, event.contestant)} takes no parting shot"
        case x.DaringRanked():
            return f"the GM ranks {called(names, event.contestant)}'s action {event.daring}"
        case x.Delayed():
            return f"{called(names, event.contestant)} delays"
        case x.JumpedIn():
            return f"{called(names, event.contestant)} jumps back in"
        case x.ChangeAllowed():
            return f"the GM lets {called(names, event.contestant)} change their action"
        case x.IntentChanged():
            return f"{called(names, event.contestant)} changes their action: {describe_intent(event.intent, names)}"
        case x.TurnPassed():
            return f"{called(names, event.contestant)} passes their turn"
        case x.FinalActionTaken():
            return (
                f"{called(names, event.contestant)} spends a hero point on a final action: {_roll(event.roll)}; "
                f"now {event.ap} AP"
            )
        case x.DisengageRolled():
            opponent = called(names, event.opponent)
            left = "withdraws" if event.withdrawn else f"stays and gives {opponent} {event.transferred} AP"
            roll = _roll(event.roll, opponent)
            return f"{called(names, event.contestant)} tries to disengage from {opponent}: {roll}; {left}"
        case x.Rejoined():
            return f"{called(names, event.contestant)} rejoins the contest"
        case x.LoanResolved():
            lender, target = called(names, event.lender), called(names, event.target)
            return (
                f"{lender} lends {event.ap} AP to {target}: {_roll(event.roll)}; "
                f"{target} {event.target_gains:+d}, {lender} -{event.lender_loses}"
            )
        case x.GiftResolved():
            giver, recipient, opponent = (called(names, c) for c in (event.giver, event.recipient, event.opponent))
            return (
                f"{giver} gives {recipient} a bid of {event.bid}: {_roll(event.roll)}; "
                f"{recipient} +{event.recipient_gains}, {opponent} +{event.opponent_gains}"
            )
        case x.HeroPointsGranted():
            if event.contestant is None:
                return "the GM grants hero points"
            reason = f": {event.reason}" if event.reason else ""
            return f"the GM grants {called(names, event.contestant)} {event.points} hero point(s){reason}"
        case _:
            assert_never(event)
