"""The order of Resolving Actions: by type (Influence, Movement, Interaction, Combat), then by the distance
to the target (engaged, close, near, far, distant), ties in announcement order; the GM may reorder.

An action with no target yet counts as close: the character acts where it stands.
Triggered actions are not in the queue: they are performed whenever their trigger is met."""

from __future__ import annotations

from protocol.rulesets.contingency import Range
from server.rules.contingency import zones as z
from server.rules.contingency.catalogue import TYPE_ORDER
from server.rules.contingency.state import ContingencyState, Planned


def distance(
    state: ContingencyState,
    character: str,
    target: str | None,
    ranges: z.Ranges | None = None,
    engaged: set[tuple[str, str]] | None = None,
) -> Range:
    """The range from a character to a target (a character, a zone or a thing); ``ranges`` and ``engaged``: the
    map's ranges and the engaged pairs, when the caller asks about many actions of one state."""
    here = state.fighters[character].zone
    if target is None or target == character:
        return "close"
    if target in state.fighters and (
        z.pair(character, target) in engaged if engaged is not None else state.engaged(character, target)
    ):
        return "engaged"
    there = state.zone_of(target)
    if there is None:
        return "distant"
    return (ranges if ranges is not None else z.Ranges(state.connections)).of(here, there)


def between(state: ContingencyState, a: str, b: str) -> Range:
    """The range between two characters."""
    if state.engaged(a, b):
        return "engaged"
    return z.zone_range(state.connections, state.fighters[a].zone, state.fighters[b].zone)


def every_range(state: ContingencyState) -> dict[str, dict[str, Range]]:
    """The range between every two characters, the map's adjacency built once and each zone searched once."""
    ranges = z.Ranges(state.connections)
    engaged = set(state.engagements)
    zone = {k: f.zone for k, f in state.fighters.items()}
    return {
        a: {b: "engaged" if z.pair(a, b) in engaged else ranges.of(zone[a], zone[b]) for b in zone if b != a}
        for a in zone
    }


def partners(state: ContingencyState) -> dict[str, list[str]]:
    """Whom each character is engaged with (``ContingencyState.engaged_with`` for all of them at once)."""
    found: dict[str, list[str]] = {k: [] for k in state.fighters}
    for a, b in state.engagements:
        found.setdefault(a, []).append(b)
        found.setdefault(b, []).append(a)
    return found


def pending(state: ContingencyState) -> list[Planned]:
    """Announced actions still to resolve, excluding triggered ones (resolved when triggered)."""
    return [
        p
        for p in state.actions.values()
        if p.status == "planned" and p.kind == "announced" and p.type != "Triggered" and p.character in state.fighters
    ]


def queue(state: ContingencyState) -> list[Planned]:
    """The actions still to resolve, in the order they resolve."""
    waiting = pending(state)
    ranges, engaged = z.Ranges(state.connections), set(state.engagements)  # built once for every action
    by_rule = sorted(
        waiting,
        key=lambda p: (
            TYPE_ORDER[p.type],
            z.RANGE_ORDER[distance(state, p.character, p.target, ranges, engaged)],
            p.seq,
        ),
    )
    ids = {p.id for p in waiting}
    ordered = [state.actions[a] for a in state.order if a in ids]
    chosen = {p.id for p in ordered}
    return ordered + [p for p in by_rule if p.id not in chosen]


def next_action(state: ContingencyState, upcoming: list[Planned] | None = None) -> Planned | None:
    """The action to resolve next (``upcoming``: the state's ``queue``, when the caller has it already)."""
    if state.phase != "resolving":
        return None
    if upcoming is None:
        upcoming = queue(state)
    return upcoming[0] if upcoming else None
