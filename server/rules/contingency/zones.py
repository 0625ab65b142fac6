"""The zone graph: connections, ranges and movement costs. Pure functions over the zones as they are now."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from protocol.rulesets.contingency import Connection, Range, Zone

RANGE_ORDER: dict[Range, int] = {"engaged": 0, "close": 1, "near": 2, "far": 3, "distant": 4}

STEP_COST = 2  # movement points to cross into an adjacent zone with no barrier, before terrain


def pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def between(connections: Iterable[Connection], a: str, b: str) -> Connection | None:
    wanted = pair(a, b)
    return next((c for c in connections if pair(c.a, c.b) == wanted), None)


def connected(connections: Iterable[Connection], a: str, b: str) -> bool:
    """Whether a path of connections (barriers or not) joins the two zones."""
    return Ranges(connections).of(a, b) != "distant"


def zone_range(connections: Iterable[Connection], a: str, b: str) -> Range:
    """Close in the same zone, near when directly connected (barrier or not), far when connected
    through others, distant when not connected at all."""
    return Ranges(connections).of(a, b)


class Ranges:
    """The ranges between zones of one map: its adjacency built once, one breadth-first search per zone
    asked about (so every range of a map costs O(zones × (zones + connections)) at most)."""

    def __init__(self, connections: Iterable[Connection]) -> None:
        self._next: dict[str, set[str]] = {}
        for k in connections:
            self._next.setdefault(k.a, set()).add(k.b)
            self._next.setdefault(k.b, set()).add(k.a)
        self._reach: dict[str, set[str]] = {}

    def of(self, a: str, b: str) -> Range:
        if a == b:
            return "close"
        if b in self._next.get(a, ()):
            return "near"
        return "far" if b in self._reachable(a) else "distant"

    def _reachable(self, start: str) -> set[str]:
        found = self._reach.get(start)
        if found is None:
            found = {start}
            queue = deque([start])
            while queue:
                for nxt in self._next.get(queue.popleft(), ()):
                    if nxt not in found:
                        found.add(nxt)
                        queue.append(nxt)
            self._reach[start] = found
        return found


def crossing_cost(zones: Mapping[str, Zone], a: str, b: str) -> int:
    """Movement points to move from zone ``a`` into adjacent zone ``b``: 2 plus the larger modifier."""
    return STEP_COST + max(zones[a].modifier, zones[b].modifier)


def path_cost(zones: Mapping[str, Zone], start: str, path: Iterable[str]) -> int:
    total, here = 0, start
    for zone in path:
        total += crossing_cost(zones, here, zone)
        here = zone
    return total


def movement_points(result: int) -> int:
    """A Reposition's movement points: one plus the roll's result."""
    return 1 + result
