"""Where the AP chart of the QuestWorlds contests must hide a contestant's AP from a viewer who does not
control it: at every point where that AP had not changed yet, the view's last point included."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.rules.questworlds.chart import CHART_POINTS, Chart


def hidden_on_chart(chart: Chart, fighters: Mapping[str, Any], contestant: str) -> Iterable[str]:
    column = chart.ap.get(contestant, ())
    hidden = [i < chart.hidden.get(contestant, 0) for i in range(len(column))]
    if any(chart.ap[c][-1] != f.ap for c, f in fighters.items() if chart.ap.get(c)):  # the view's last point
        hidden = [*hidden[-(CHART_POINTS - 1) :], not fighters[contestant].ap_known]
    return (f"/rules/chart/ap/{contestant}/{k}" for k, unseen in enumerate(hidden) if unseen)
