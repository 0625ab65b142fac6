"""Per-viewer views and event redaction: a viewer never receives what it may not see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from protocol.common import Actor, Seat
from protocol.events import Declared, Envelope, Event, Revealed
from protocol.views import ContestView, DeclarationView, SealView
from server.engine.contest import Contest, undo_target
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import ENGINE_EVENTS

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
    if isinstance(event, ENGINE_EVENTS) and not isinstance(event, Revealed):
        return event
    return ruleset.redact(rules_before, event, viewer)


def contest_view(ruleset: Ruleset[Any], contest: Contest[Any], viewer: Viewer) -> ContestView:
    created = contest.created
    window = ruleset.window(contest.rules) if contest.concluded is None else None
    seal = None
    if window is not None:
        declared = [
            DeclarationView(
                participant=d.participant,
                commitment=d.commitment,
                payload=d.payload if viewer.omniscient or viewer.controls(d.participant) else None,
            )
            for d in contest.declared.values()
            if d.window == window.id
        ]
        seal = SealView(window=window.id, expected=list(window.expected), declared=declared)
    concluded = contest.concluded
    return ContestView(
        contest=contest.id,
        ruleset=created.ruleset,
        title=created.title,
        version=contest.version,
        dice=created.dice,
        seed_hash=created.seed_hash,
        seed=concluded.seed if concluded is not None else None,
        concluded=concluded is not None,
        seal=seal,
        can_undo=concluded is None and undo_target(contest) is not None,
        can_redo=concluded is None and bool(contest.redo),
        rules=ruleset.view(contest.rules, viewer),
    )
