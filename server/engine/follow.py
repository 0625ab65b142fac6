"""Views that follow events: each viewer's view of a contest after a batch, made from its view before it.

The ruleset names the members of its view each of its events may change (``Ruleset.touches``) and builds only
those again (``Ruleset.follow``); every other member is the earlier view's own object, which the message diff
(``protocol.patch.diff_views``) then skips without reading it. A batch that leaves the rule state as it was (a
sealed declaration) keeps the ruleset's view whole. An event of the engine's other than a reveal (undo, rewind,
conclusion…), or one the ruleset does not follow, has the views built whole: that is also what the conformance
suite checks every followed view against.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.events import Envelope
from protocol.views import ContestView
from server.engine.contest import Contest
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import ENGINE_SHOWN
from server.engine.views import contest_views


def touched(
    ruleset: Ruleset[Any], before: Contest[Any], after: Contest[Any], batch: Sequence[tuple[Envelope, Any]]
) -> frozenset[str] | None:
    """The members of the ruleset's view the batch's events (each with the rule state before it) may change:
    empty when none may, None when any may."""
    if after.rules is before.rules:
        return frozenset()
    members: set[str] = set()
    for i, (envelope, rules_before) in enumerate(batch):
        rules_after = batch[i + 1][1] if i + 1 < len(batch) else after.rules
        if rules_after is rules_before:
            continue
        event = envelope.event
        if type(event) in ENGINE_SHOWN:
            return None
        these = ruleset.touches(rules_before, rules_after, event)
        if these is None:
            return None
        members |= these
    return frozenset(members)


def followed_views(
    ruleset: Ruleset[Any],
    before: Contest[Any],
    after: Contest[Any],
    batch: Sequence[tuple[Envelope, Any]],
    viewers: Sequence[Viewer],
    kept: Sequence[ContestView],
) -> list[ContestView]:
    """Each viewer's view of ``after`` (in order), following ``kept``, its view of ``before``: equal to
    ``contest_views(ruleset, after, viewers)``, a law of the conformance suite."""
    members = touched(ruleset, before, after, batch)
    earlier = [view.rules for view in kept]
    shown: Sequence[Any] | None = None
    if members is not None and not members:
        shown = earlier
    elif members is not None and ruleset.follow is not None:
        shown = ruleset.follow(after.rules, viewers, earlier, members)
    return contest_views(ruleset, after, viewers, shown)
