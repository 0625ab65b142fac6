"""Hero points as the QuestWorlds rulesets show them: who may still spend one is known to few."""

from __future__ import annotations

from collections.abc import Iterable

from server.engine.ruleset import Viewer


def pending_for(eligible: Iterable[str], viewer: Viewer) -> list[str]:
    """The contestants who may still spend a hero point, as ``viewer`` may see them: that list tells who holds
    hero points, which only the GM and each contestant's controller may know."""
    return [c for c in eligible if viewer.omniscient or viewer.controls(c)]
