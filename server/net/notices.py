"""Notices: one human-readable line per event, written from the event *as the viewer may see it*.

The text is built only from ``event_for``'s redacted envelope (and the ruleset's ``redact``), so a sealed
payload can never appear in another viewer's notice.
"""

from __future__ import annotations

from typing import Any

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
from server.engine.timeline import describe
from server.engine.views import event_for

_ENGINE_EVENTS = (ContestCreated, Declared, Revealed, Undone, Rewound, Redone, Concluded)


def _is_engine_event(event: Event) -> bool:
    return isinstance(event, _ENGINE_EVENTS)


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
            text=describe(ruleset, event, envelope.actor.principal),
        )
    )
