"""Where the AP chart of the QuestWorlds contests must hide a contestant's AP from a viewer who does not
control it: at every point where that AP had not changed yet, the view's last point included."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from server.rules.questworlds.chart import CHART_POINTS, Mark


def hidden_on_chart(chart: tuple[Mark, ...], fighters: Mapping[str, Any], contestant: str) -> Iterable[str]:
    known = [contestant in m.known for m in chart]
    if chart and any(chart[-1].ap.get(c) != f.ap for c, f in fighters.items()):  # the view's point for changes since
        known = [*known[-(CHART_POINTS - 1) :], fighters[contestant].ap_known]
    return (f"/rules/chart/{k}/ap/{contestant}" for k, seen in enumerate(known) if not seen)
