"""Notices: one human-readable line per event, written from the event *as the viewer may see it*.

The text is built only from ``event_for``'s redacted envelope (and the ruleset's ``redact``), so a sealed
payload can never appear in another viewer's notice.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocol.codec import encode
from protocol.events import Envelope, Redone, Rewound, Undone
from protocol.messages import NoticeLine, notice_of
from server.engine.names import Naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import describe
from server.engine.views import shown_event

Told = dict[int, tuple[Any, NoticeLine]]
"""Lines already written in one fan-out, by the event shown (kept with it, so its id stays its own)."""


def notice_line(
    ruleset: Ruleset[Any],
    rules_before: Any,
    envelope: Envelope,
    viewer: Viewer,
    naming: Naming,
    told: Told | None = None,
) -> NoticeLine | None:
    """The notice of ``envelope`` for ``viewer``, naming people and things by ``naming``, or None when the
    ruleset hides the event from it. With ``told``, an event shown to several viewers as the same object is
    described once."""
    event = shown_event(ruleset, rules_before, envelope, viewer)
    if event is None:
        return None
    known = told.get(id(event)) if told is not None else None
    if known is not None and known[0] is event:
        return known[1]
    line = NoticeLine(
        version=envelope.version,
        kind=str(type(event).__struct_config__.tag),
        actor=envelope.actor.principal,
        at=envelope.at,
        text=describe(ruleset, event, envelope.actor, naming),
        undone=tuple(event.removed) if type(event) is Undone or type(event) is Rewound else msgspec.UNSET,
        redone=tuple(event.restored) if type(event) is Redone else msgspec.UNSET,
    )
    if told is not None:
        told[id(event)] = (event, line)
    return line


def notice_frame(
    ruleset: Ruleset[Any], rules_before: Any, envelope: Envelope, viewer: Viewer, naming: Naming, contest: str
) -> bytes | None:
    """The encoded ``notice`` message of ``envelope`` for ``viewer`` (outside a live patch), or None when the
    ruleset hides the event from it."""
    line = notice_line(ruleset, rules_before, envelope, viewer, naming)
    if line is None:
        return None
    return encode(notice_of(contest, line))
