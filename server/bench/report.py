"""Tables of medians, in markdown (they paste into the README as they are)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def shown(value: float | str | None) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if value != value:  # NaN: not measured
        return "—"
    if abs(value) >= 999.95:  # what would print as 1000.0
        return f"{value:,.0f}"
    if abs(value) >= 9.995:
        return f"{value:.1f}"
    return f"{value:.2f}"


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[float | str | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: float | str | None) -> None:
        self.rows.append(list(cells))

    def markdown(self) -> str:
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |"]
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines.extend("| " + " | ".join(shown(c) for c in row) + " |" for row in self.rows)
        lines.extend(["", *(f"{note}" for note in self.notes)] if self.notes else [])
        return "\n".join(lines) + "\n"


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def median_of(rounds: Sequence[object], name: str) -> float:
    """The median of one figure (the attribute ``name``) over the rounds of a run."""
    return median([getattr(figures, name) for figures in rounds])


def beside(ours: Sequence[object], theirs: Sequence[object], name: str) -> tuple[float, float, float]:
    """One figure's median over our rounds, over the other server's (the floor, the peer), and the ratio of the
    two: three cells of a row."""
    a, b = median_of(ours, name), median_of(theirs, name)
    return a, b, ratio(a, b)
