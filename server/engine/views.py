"""Per-viewer views and event redaction: a viewer never receives what it may not see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from protocol.common import Actor, Seat
from protocol.events import Declared, Envelope, Event
from protocol.ops import Op, Replace
from protocol.views import ContestView, DeclarationView, SealView
from server.engine.contest import Contest, undo_target
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import ENGINE_EVENTS, ENGINE_SHOWN
from server.engine.waiting import awaited, waiting_views

_NONE: frozenset[str] = frozenset()  # one for every viewer who controls nobody (each ``frozenset()`` is new)


def viewer_for(actor: Actor, seats: Sequence[Seat]) -> Viewer:
    contestants = _NONE
    if actor.role == "player":
        seat = next((s for s in seats if s.id == actor.principal and s.role == "player"), None)
        contestants = frozenset(seat.contestants) if seat is not None else frozenset()
    return Viewer(principal=actor.principal, role=actor.role, contestants=contestants)


Sight = tuple[str, frozenset[str]]


def sight(viewer: Viewer) -> Sight:
    """All a view may depend on: whether the viewer is the GM, an auditor or neither, and the contestants it
    controls. A spectator and a player who controls nobody have the same sight; so do two spectators.
    Viewers of one sight get the same view (a law the conformance suite checks for every ruleset), so a view
    is built once per sight."""
    return (viewer.role if viewer.omniscient else "", viewer.contestants)


def may_see(envelope: Envelope, viewer: Viewer) -> bool:
    """Whether the viewer may see the event whole (else only its redacted form)."""
    return envelope.visible_to is None or viewer.omniscient or viewer.principal in envelope.visible_to


def event_for(envelope: Envelope, viewer: Viewer) -> Envelope:
    """The envelope as this viewer may see it: a sealed declaration keeps only its commitment."""
    if may_see(envelope, viewer):
        return envelope
    event = envelope.event
    if isinstance(event, Declared):
        return msgspec.structs.replace(envelope, event=msgspec.structs.replace(event, payload=None, salt=None))
    raise AssertionError(f"event {envelope.version}: only declarations are private")


def shown_event(ruleset: Ruleset[Any], rules_before: Any, envelope: Envelope, viewer: Viewer) -> Event | None:
    """The event as this viewer may see it (a sealed declaration keeps only its commitment; the ruleset
    removes what its ``redact`` hides from ruleset events and reveals), or None when it hides it whole."""
    event = event_for(envelope, viewer).event
    if type(event) in ENGINE_SHOWN:
        return event
    return ruleset.redact(rules_before, event, viewer)


def contest_view(ruleset: Ruleset[Any], contest: Contest[Any], viewer: Viewer) -> ContestView:
    return contest_views(ruleset, contest, [viewer])[0]


def contest_views(
    ruleset: Ruleset[Any], contest: Contest[Any], viewers: Sequence[Viewer], shown: Sequence[Any] | None = None
) -> list[ContestView]:
    """Each viewer's view of the contest, in order; what the views share is worked out once. ``shown``: the
    ruleset's view for each viewer, when the caller has it (``server.engine.follow``)."""
    created, concluded = contest.created, contest.concluded
    window = ruleset.window(contest.rules) if concluded is None else None
    declared = [d for d in contest.declared.values() if d.window == window.id] if window is not None else []
    can_undo, can_redo = _can_undo(contest), _can_redo(contest)
    waiting = waiting_views(ruleset, contest, viewers)
    rules = contest.rules
    if shown is None and ruleset.views is not None:
        shown = ruleset.views(rules, viewers)
    elif shown is None:
        shown = [ruleset.view(rules, v) for v in viewers]
    views: list[ContestView] = []
    made: dict[tuple[int, int, tuple[bool, ...]], ContestView] = {}  # viewers who see alike share one view
    for viewer, waits, rules_view in zip(viewers, waiting, shown, strict=True):
        opened = tuple(viewer.omniscient or viewer.controls(d.participant) for d in declared)
        key = (id(rules_view), id(waits), opened)
        if (alike := made.get(key)) is not None:
            views.append(alike)
            continue
        seal = None
        if window is not None:
            seen = [
                DeclarationView(
                    participant=d.participant,
                    commitment=d.commitment,
                    payload=d.payload if shown_to else None,
                )
                for d, shown_to in zip(declared, opened, strict=True)
            ]
            seal = SealView(window=window.id, expected=list(window.expected), declared=seen)
        views.append(
            ContestView(
                contest=contest.id,
                ruleset=created.ruleset,
                title=created.title,
                version=contest.version,
                dice=created.dice,
                seed_hash=created.seed_hash,
                seed=concluded.seed if concluded is not None else None,
                concluded=concluded is not None,
                seal=seal,
                can_undo=can_undo,
                can_redo=can_redo,
                waiting=waits,
                rules=rules_view,
            )
        )
        made[key] = views[-1]
    return views


def _can_undo(contest: Contest[Any]) -> bool:
    return contest.concluded is None and undo_target(contest) is not None


def _can_redo(contest: Contest[Any]) -> bool:
    return contest.concluded is None and bool(contest.redo)


RULES_ROOT = "/rules"
"""Where the ruleset's view sits in the contest's view (``ContestView.rules``)."""


def written_patches(
    ruleset: Ruleset[Any],
    before: Contest[Any],
    after: Contest[Any],
    batch: Sequence[tuple[Envelope, Any]],
    viewers: Sequence[Viewer],
) -> list[list[Op]] | None:
    """The patches from each viewer's view of ``before`` to its view of ``after`` (one per viewer, in order), as
    the ruleset writes them for the batch's events (each envelope with the rule state before it), without
    building any view. None when the ruleset writes none for one of the events, or when the batch holds an
    event of the engine's or a private one, or changes what the engine shows around the ruleset's view (the
    open seal and its declarations, the conclusion, what the contest waits for): then the views are diffed."""
    if before.concluded is not None or after.concluded is not None or before.declared is not after.declared:
        return None
    if ruleset.window(before.rules) != ruleset.window(after.rules):
        return None
    patches: list[list[Op]] = [[] for _ in viewers]
    for i, (envelope, rules_before) in enumerate(batch):
        if type(envelope.event) in ENGINE_EVENTS or envelope.visible_to is not None:
            return None
        rules_after = batch[i + 1][1] if i + 1 < len(batch) else after.rules
        written = ruleset.view_patches(rules_before, rules_after, envelope.event, viewers, RULES_ROOT)
        if written is None:
            return None
        for patch, ops in zip(patches, written, strict=True):
            patch += ops
    if awaited(ruleset, before) != awaited(ruleset, after):
        return None  # what the contest waits for changed with the events: the views are diffed
    shown: list[Op] = [Replace(path="/version", value=after.version)]
    if _can_undo(before) != (can_undo := _can_undo(after)):
        shown.append(Replace(path="/can_undo", value=can_undo))
    if _can_redo(before) != (can_redo := _can_redo(after)):
        shown.append(Replace(path="/can_redo", value=can_redo))
    for patch in patches:
        patch += shown
    return patches
