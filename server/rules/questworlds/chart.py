"""The AP chart of the QuestWorlds contests: each contestant's AP at the start, after every applied exchange
and after every change between exchanges, kept in the rule state so every viewer sees the whole story.

The state writes the chart only when an exchange is applied (an append copies at most ``CHART_POINTS``
points, so the fold stays linear and pays nothing for other events). A point remembers whose AP was public
then: a viewer sees a contestant's AP on the chart exactly where it could see the AP itself at that point
(its own contestants and the GM's always; anyone's once it has changed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, TypeVar

import msgspec

from protocol.common import ApPoint
from server.engine.ruleset import Viewer

CHART_POINTS = 200
"""How many of the newest points the chart keeps."""


class Charted(Protocol):
    """What the chart reads of a contestant."""

    @property
    def ap(self) -> int: ...

    @property
    def ap_known(self) -> bool: ...


class Mark(msgspec.Struct, frozen=True):
    """A point of the chart as the rule state keeps it: every AP, and whose AP was public."""

    exchange: int
    ap: dict[str, int]
    known: list[str]
    adjusted: bool = False


def mark(fighters: Mapping[str, Charted], exchange: int, *, adjusted: bool = False) -> Mark:
    return Mark(
        exchange=exchange,
        ap={c: f.ap for c, f in fighters.items()},
        known=[c for c, f in fighters.items() if f.ap_known],
        adjusted=adjusted,
    )


def _moved_since(newest: Mark, fighters: Mapping[str, Charted]) -> bool:
    return any(newest.ap.get(c) != f.ap for c, f in fighters.items())


def _appended(chart: tuple[Mark, ...], point: Mark) -> tuple[Mark, ...]:
    return (*chart[-(CHART_POINTS - 1) :], point)


class ChartedState(Protocol):
    """What the chart reads of a contest's state."""

    @property
    def fighters(self) -> Mapping[str, Charted]: ...

    @property
    def exchanges(self) -> int: ...

    @property
    def chart(self) -> tuple[Mark, ...]: ...


S = TypeVar("S", bound=ChartedState)


def chart_after(before: S, after: S, *, applied: bool) -> S:
    """``after`` (the state an event led to from ``before``) with its chart brought up to date.

    Only an applied exchange writes the chart: a point for it, preceded by one ``adjusted`` point when AP
    changed since the newest point (the GM's adjustments and other changes between two exchanges). Any other
    event leaves the state's chart alone, so the fold pays nothing for it; the view adds the changes since
    the newest point as a last ``adjusted`` point."""
    if not applied:
        return after
    chart = before.chart
    if chart and _moved_since(chart[-1], before.fighters):
        chart = _appended(chart, mark(before.fighters, before.exchanges, adjusted=True))
    chart = _appended(chart, mark(after.fighters, after.exchanges))
    return msgspec.structs.replace(after, chart=chart)  # type: ignore[type-var]


def chart_for(state: ChartedState, viewer: Viewer) -> list[ApPoint]:
    """The chart as ``viewer`` may see it: AP where it was public at that point, or the viewer's own; the
    changes since the newest point as a last ``adjusted`` point."""
    marks: Iterable[Mark] = state.chart
    if state.chart and _moved_since(state.chart[-1], state.fighters):
        marks = [*state.chart[-(CHART_POINTS - 1) :], mark(state.fighters, state.exchanges, adjusted=True)]
    return [
        ApPoint(
            exchange=m.exchange,
            ap={c: ap if viewer.omniscient or viewer.controls(c) or c in m.known else None for c, ap in m.ap.items()},
            adjusted=m.adjusted,
        )
        for m in marks
    ]
