"""The AP chart of the QuestWorlds contests: each contestant's AP at the start, after every applied exchange
and after every change between exchanges, kept in the rule state so every viewer sees the whole story.

The state writes the chart only when an exchange is applied (an append copies at most ``CHART_POINTS``
points, so the fold stays linear and pays nothing for other events). The chart is kept and sent by columns,
so a view of a long contest costs a few list copies, not a structure per point. A contestant's AP is hidden
on the chart exactly where the AP itself was hidden at that point: from anyone but its controller and the
GM until it has changed (AP knowledge). Once known it stays known, so the hidden points are a prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

import msgspec

from protocol.common import ApChart
from protocol.ops import Add, Op, Remove, Replace
from protocol.patch import escape
from server.engine.ruleset import Viewer

CHART_POINTS = 200
"""How many of the newest points the chart keeps."""


class Charted(Protocol):
    """What the chart reads of a contestant."""

    @property
    def ap(self) -> int: ...

    @property
    def ap_known(self) -> bool: ...


class Chart(msgspec.Struct, frozen=True, gc=False):
    """The chart as the rule state keeps it: one column per field, oldest point first."""

    exchange: tuple[int, ...] = ()
    adjusted: tuple[bool, ...] = ()
    ap: dict[str, tuple[int, ...]] = {}
    hidden: dict[str, int] = {}  # per contestant, how many of the first points hide its AP


def started(fighters: Mapping[str, Charted]) -> Chart:
    """The chart of a new contest: the starting AP."""
    return _appended(Chart(), fighters, 0, adjusted=False)


def _appended(chart: Chart, fighters: Mapping[str, Charted], exchange: int, *, adjusted: bool) -> Chart:
    drop = 1 if len(chart.exchange) >= CHART_POINTS else 0
    hidden = {c: _hidden_with(chart, c, f) - drop for c, f in fighters.items()}
    return Chart(
        exchange=(*chart.exchange[drop:], exchange),
        adjusted=(*chart.adjusted[drop:], adjusted),
        ap={c: (*chart.ap.get(c, ())[drop:], f.ap) for c, f in fighters.items()},
        hidden={c: max(0, h) for c, h in hidden.items()},
    )


def _hidden_with(chart: Chart, contestant: str, fighter: Charted) -> int:
    """How many of the first points hide the contestant's AP once a point for ``fighter`` is appended (before
    the oldest point slides off a full chart): one more while its AP has not changed yet."""
    return chart.hidden.get(contestant, 0) + (0 if fighter.ap_known else 1)


def _moved_since(chart: Chart, fighters: Mapping[str, Charted]) -> bool:
    """Whether some AP differs from the chart's newest point."""
    return any(chart.ap[c][-1] != f.ap for c, f in fighters.items() if chart.ap.get(c))


class ChartedState(Protocol):
    """What the chart reads of a contest's state."""

    @property
    def fighters(self) -> Mapping[str, Charted]: ...

    @property
    def exchanges(self) -> int: ...

    @property
    def chart(self) -> Chart: ...


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
    if _moved_since(chart, before.fighters):
        chart = _appended(chart, before.fighters, before.exchanges, adjusted=True)
    chart = _appended(chart, after.fighters, after.exchanges, adjusted=False)
    return msgspec.structs.replace(after, chart=chart)  # type: ignore[type-var]


def chart_for(state: ChartedState, viewer: Viewer) -> ApChart:
    """The chart as ``viewer`` may see it (``null`` where it may not see an AP), with the changes since the
    newest point as a last ``adjusted`` point."""
    return _chart_seen(_shown(state), viewer)


def _chart_seen(shown: Shown, viewer: Viewer) -> ApChart:
    chart, exchange, adjusted, whole = shown
    ap: dict[str, list[int | None]] = {}
    for c, column in chart.ap.items():
        hidden = 0 if viewer.omniscient or viewer.controls(c) else chart.hidden.get(c, 0)
        ap[c] = [*([None] * hidden), *column[hidden:]] if hidden else whole[c]
    return ApChart(exchange=exchange, adjusted=adjusted, ap=ap)


CHART_READS = ("fighters", "exchanges", "chart")
"""The attributes of a contest's state ``chart_for`` reads (those ``ChartedState`` names): what a view's chart
member (``chart_member``) is made from."""


def chart_member(state: ChartedState) -> Callable[[Viewer], ApChart]:
    """A view's chart member (``server.engine.view_members``): the chart as each viewer may see it, its columns
    made once per state for every sight."""
    shown = _shown(state)
    return lambda viewer: _chart_seen(shown, viewer)


def chart_patches(
    before: ChartedState, after: ChartedState, viewers: Sequence[Viewer], path: str
) -> list[list[Op]] | None:
    """For each viewer, the ops that turn its chart of ``before`` into its chart of ``after`` (at ``path``) when
    the two states keep the same chart and only AP moved between them, as between two exchanges: the view's
    last ``adjusted`` point for the changes since the chart's newest point is added, changed or dropped. None
    for anything else (the chart written, a contestant new to it, a chart full enough to slide): diff the views.

    Written from the states, not from the charts ``chart_for`` shows, so it builds neither: what it adds is
    what ``_appended`` would, for a chart that does not slide."""
    chart = after.chart
    if before.chart is not chart or before.exchanges != after.exchanges or chart.ap.keys() != after.fighters.keys():
        return None
    moved_before, moved_after = _moved_since(chart, before.fighters), _moved_since(chart, after.fighters)
    if not moved_before and not moved_after:
        return [[] for _ in viewers]
    newest = len(chart.exchange)  # the index of the view's ``adjusted`` point
    if newest >= CHART_POINTS:
        return None
    columns = [(c, f"{path}/ap/{escape(c)}") for c in chart.ap]
    if not moved_after:
        dropped: list[Op] = [Remove(path=f"{path}/{column}/{newest}") for column in ("exchange", "adjusted")]
        dropped += [Remove(path=f"{column}/{newest}") for _, column in columns]
        return [dropped for _ in viewers]
    if not moved_before:
        point = [Add(path=f"{path}/exchange/-", value=after.exchanges), Add(path=f"{path}/adjusted/-", value=True)]
        return [
            [*point, *(Add(path=f"{column}/-", value=_seen(after, c, newest, viewer)) for c, column in columns)]
            for viewer in viewers
        ]
    patches: list[list[Op]] = []
    for viewer in viewers:
        seen = ((column, _seen(before, c, newest, viewer), _seen(after, c, newest, viewer)) for c, column in columns)
        patches.append([Replace(path=f"{column}/{newest}", value=ap) for column, was, ap in seen if ap != was])
    return patches


def _seen(state: ChartedState, contestant: str, point: int, viewer: Viewer) -> int | None:
    """A contestant's AP as ``viewer`` sees it at the chart's ``adjusted`` point ``point``, appended to a chart
    that does not slide (hidden as ``_appended`` hides it)."""
    fighter = state.fighters[contestant]
    if viewer.omniscient or viewer.controls(contestant):
        return fighter.ap
    return None if point < _hidden_with(state.chart, contestant, fighter) else fighter.ap


Shown = tuple[Chart, list[int], list[bool], dict[str, list[int | None]]]

_last_shown: list[tuple[ChartedState, Shown]] = []


def _shown(state: ChartedState) -> Shown:
    """The chart with its last ``adjusted`` point, and its shared columns (each AP column whole, for those who
    see all of it). Every viewer's view of one state asks for the same: it is made once per state (the state
    is immutable; the lists are only read)."""
    last = _last_shown[-1] if _last_shown else None  # read once: another thread may replace it
    if last is not None and last[0] is state:
        return last[1]
    chart = state.chart
    if _moved_since(chart, state.fighters):
        chart = _appended(chart, state.fighters, state.exchanges, adjusted=True)
    whole: dict[str, list[int | None]] = {c: list(column) for c, column in chart.ap.items()}
    shown = (chart, list(chart.exchange), list(chart.adjusted), whole)
    _last_shown[:] = [(state, shown)]
    return shown
