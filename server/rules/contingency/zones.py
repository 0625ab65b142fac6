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


def neighbours(connections: Iterable[Connection], zone: str) -> list[str]:
    out: list[str] = []
    for c in connections:
        if c.a == zone:
            out.append(c.b)
        elif c.b == zone:
            out.append(c.a)
    return out


def connected(connections: Iterable[Connection], a: str, b: str) -> bool:
    """Whether a path of connections (barriers or not) joins the two zones."""
    if a == b:
        return True
    listed = list(connections)
    seen = {a}
    queue = deque([a])
    while queue:
        for nxt in neighbours(listed, queue.popleft()):
            if nxt == b:
                return True
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


def zone_range(connections: Iterable[Connection], a: str, b: str) -> Range:
    """Close in the same zone, near when directly connected (barrier or not), far when connected
    through others, distant when not connected at all."""
    listed = list(connections)
    if a == b:
        return "close"
    if between(listed, a, b) is not None:
        return "near"
    return "far" if connected(listed, a, b) else "distant"


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
