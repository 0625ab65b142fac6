"""A contest's log as one viewer saw it, and that viewer's view at any version: the replay viewer's data.

Pure: the caller reads the log and runs the audit. Each line is written from the event *as the viewer may
see it* (``views.event_for`` and the ruleset's ``redact``), exactly like the live notices, so a replay never
shows a viewer more than it was shown live.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.codec import to_builtins
from protocol.common import SPECTATOR, Actor, Seat
from protocol.events import Concluded, ContestCreated, Envelope, Redone, Rewound, SeatReissued, Undone
from protocol.messages import Json, TimelineEntry
from server.engine.contest import Contest, CorruptLog, apply, begin, rewind_targets
from server.engine.names import naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import describe
from server.engine.views import contest_view, may_see, shown_event, viewer_for

CONTROL_EVENTS = (ContestCreated, Undone, Rewound, Redone, Concluded, SeatReissued)


@dataclass(frozen=True)
class Replay:
    head: int
    at: int
    entries: list[TimelineEntry]
    view: dict[str, Json]
    revised: list[TimelineEntry] = field(default_factory=list)


def replay_viewer(name: str, seats: Sequence[Seat]) -> Viewer:
    """``gm`` (the first GM seat), a player seat id, or ``~spectator``; ValueError for anything else."""
    if name == "gm":
        gm = next(s for s in seats if s.role == "gm")
        return viewer_for(Actor(gm.id, "gm"), seats)
    if name == SPECTATOR:
        return viewer_for(Actor(SPECTATOR, "spectator"), seats)
    if any(s.id == name and s.role == "player" for s in seats):
        return viewer_for(Actor(name, "player"), seats)
    raise ValueError(f"viewer: {name!r} is not gm, a player seat of this contest or {SPECTATOR}")


def replay(
    ruleset: Ruleset[Any], envelopes: Sequence[Envelope], viewer: Viewer, at: int | None, after: int | None = None
) -> Replay:
    """Every event the viewer was shown, marked as of version ``at`` (default: the head), and its view there.

    With ``after`` (the head of an earlier replay at the head): only the entries after it, and in ``revised``
    the earlier ones whose marks differ from what that replay said (an undo or a rewind since)."""
    if not envelopes:
        raise CorruptLog("no events")
    head = envelopes[-1].version
    target = head if at is None else max(1, min(at, head))
    contest: Contest[Any] | None = None
    at_target: Contest[Any] | None = None
    at_after: Contest[Any] | None = None
    lines: list[tuple[Envelope, str, str, bool]] = []
    for envelope in envelopes:
        before = contest.rules if contest is not None else None
        contest = begin(ruleset, envelope) if contest is None else apply(ruleset, contest, envelope)
        if envelope.version == target:
            at_target = contest
        if envelope.version == after:
            at_after = contest
        event = shown_event(ruleset, before if before is not None else contest.rules, envelope, viewer)
        if event is None:
            continue
        kind = str(type(event).__struct_config__.tag)
        named = naming(ruleset, contest.created.seats, before, contest.rules)
        text = describe(ruleset, event, envelope.actor, named)
        lines.append((envelope, kind, text, not may_see(envelope, viewer)))
    assert contest is not None and at_target is not None
    entries = _marked(lines, at_target, contest)
    view: dict[str, Json] = to_builtins(contest_view(ruleset, at_target, viewer))
    if after is None:
        return Replay(head=head, at=target, entries=entries, view=view)
    earlier = [e for e in entries if e.version <= after]
    told = _marked(lines[: len(earlier)], at_after, at_after) if at_after is not None else earlier
    revised = [now for now, then in zip(earlier, told, strict=True) if now != then]
    return Replay(head=head, at=target, entries=entries[len(earlier) :], view=view, revised=revised)


def _marked(lines: list[tuple[Envelope, str, str, bool]], at: Contest[Any], head: Contest[Any]) -> list[TimelineEntry]:
    """The entries marked as of the contest ``at`` (undone), with the rewind targets of the contest ``head``."""
    effective = {step.version for step in at.steps()}
    targets = set(rewind_targets(head)) if head.concluded is None else set()
    return [
        TimelineEntry(
            version=envelope.version,
            kind=kind,
            actor=envelope.actor.principal,
            at=envelope.at,
            text=text,
            sealed=sealed,
            undone=envelope.version <= at.version
            and not isinstance(envelope.event, CONTROL_EVENTS)
            and envelope.version not in effective,
            checkpoint=envelope.checkpoint,
            rewind_to=envelope.version in targets,
        )
        for envelope, kind, text, sealed in lines
    ]
