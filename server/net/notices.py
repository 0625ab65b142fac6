"""Notices: one human-readable line per event, written from the event *as the viewer may see it*.

The text is built only from ``event_for``'s redacted envelope (and the ruleset's ``redact``), so a sealed
payload can never appear in another viewer's notice.
"""

from __future__ import annotations

from typing import Any, assert_never

from protocol import extended as x
from protocol.codec import encode
from protocol.events import (
    Concluded,
    ContestCreated,
    Declared,
    Envelope,
    Event,
    Redone,
    Revealed,
    Rewound,
    Undone,
)
from protocol.messages import Notice
from server.engine.ruleset import Ruleset, Viewer
from server.engine.views import event_for


def _intent(intent: x.Intent) -> str:
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


def describe(event: Event, actor: str) -> str:
    """The line for one (already redacted) event."""
    match event:
        case ContestCreated():
            dice = "server dice" if event.dice == "server" else "physical dice"
            title = f" “{event.title}”" if event.title else ""
            return f"{actor} opened the {event.ruleset} contest{title} ({dice})"
        case Declared():
            if event.payload is None:
                return f"{event.participant} has declared (sealed; commitment {event.commitment[:12]}…)"
            return f"{event.participant} declared, sealed: {_intent(event.payload)}"
        case Revealed():
            shown = "; ".join(f"{e.participant}: {_intent(e.payload)}" for e in event.entries) or "nothing declared"
            closed = " (closed by the GM)" if event.closed_by_gm else ""
            return f"declarations revealed{closed}: {shown}"
        case Undone():
            return f"{actor} undid back to version {event.to_version}"
        case Rewound():
            return f"{actor} rewound to version {event.to_version}"
        case Redone():
            return f"{actor} redid {len(event.restored)} event(s)"
        case Concluded():
            seed = "; the dice seed is revealed" if event.seed else ""
            return f"{actor} concluded the contest{seed}"
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
            return f"{event.contestant} takes a parting shot: {_intent(event.intent)}"
        case x.ContestResumed():
            return f"{event.contestant} is back in the contest"
        case _:
            assert_never(event)


def _is_engine_event(event: Event) -> bool:
    return isinstance(event, ContestCreated | Declared | Revealed | Undone | Rewound | Redone | Concluded)


def notice_frame(
    ruleset: Ruleset[Any], rules_before: Any, envelope: Envelope, viewer: Viewer, contest: str
) -> bytes | None:
    """The encoded notice of ``envelope`` for ``viewer``, or None when the ruleset hides the event from it."""
    shown = event_for(envelope, viewer)
    event: Event = shown.event
    if not _is_engine_event(event):
        redacted = ruleset.redact(rules_before, event, viewer)  # type: ignore[arg-type]
        if redacted is None:
            return None
        event = redacted
    kind = str(type(event).__struct_config__.tag)
    return encode(
        Notice(
            contest=contest,
            version=envelope.version,
            kind=kind,
            actor=envelope.actor.principal,
            at=envelope.at,
            text=describe(event, envelope.actor.principal),
        )
    )
