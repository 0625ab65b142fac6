"""Counters, gauges and histograms, rendered in the Prometheus text exposition format (version 0.0.4)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

LabelValues = tuple[str, ...]


def format_value(value: float) -> str:
    """A sample value: integers without a fraction, ``+Inf``, ``-Inf`` and ``NaN`` as Prometheus spells them."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 2**63:
        return str(int(value))
    return repr(float(value))


def escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _labels(names: Sequence[str], values: Sequence[str], extra: Iterable[tuple[str, str]] = ()) -> str:
    pairs = [*zip(names, values, strict=True), *extra]
    if not pairs:
        return ""
    return "{" + ",".join(f'{name}="{escape_label(value)}"' for name, value in pairs) + "}"


@dataclass
class _Metric:
    name: str
    help: str
    labels: tuple[str, ...] = ()

    kind = "untyped"

    def _check(self, values: Sequence[str]) -> LabelValues:
        if len(values) != len(self.labels):
            raise ValueError(f"{self.name} takes labels {self.labels}, got {tuple(values)}")
        return tuple(values)

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {escape_help(self.help)}", f"# TYPE {self.name} {self.kind}"]

    def samples(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> list[str]:
        return [*self.header(), *self.samples()]


@dataclass
class _Valued(_Metric):
    """A metric holding one value per set of label values."""

    _values: dict[LabelValues, float] = field(default_factory=dict)

    def value(self, *labels: str) -> float:
        return self._values.get(self._check(labels), 0.0)

    def samples(self) -> list[str]:
        if not self.labels and not self._values:
            return [f"{self.name} 0"]
        return [
            f"{self.name}{_labels(self.labels, key)} {format_value(value)}"
            for key, value in sorted(self._values.items())
        ]


@dataclass
class Counter(_Valued):
    """A total that only goes up."""

    kind = "counter"

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        if amount < 0:
            raise ValueError("a counter only goes up")
        key = self._check(labels)
        self._values[key] = self._values.get(key, 0.0) + amount


@dataclass
class Gauge(_Valued):
    """A value that goes up and down."""

    kind = "gauge"

    def set(self, value: float, *labels: str) -> None:
        self._values[self._check(labels)] = value

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        key = self._check(labels)
        self._values[key] = self._values.get(key, 0.0) + amount

    def dec(self, *labels: str, amount: float = 1.0) -> None:
        self.inc(*labels, amount=-amount)


@dataclass
class _Series:
    counts: list[int]
    total: float = 0.0
    count: int = 0


@dataclass
class Histogram(_Metric):
    """Observations counted into cumulative buckets (``le``), with their sum and count."""

    buckets: tuple[float, ...] = LATENCY_BUCKETS
    _series: dict[LabelValues, _Series] = field(default_factory=dict)

    kind = "histogram"

    def __post_init__(self) -> None:
        if list(self.buckets) != sorted(set(self.buckets)) or not self.buckets:
            raise ValueError("histogram buckets must be distinct and increasing")
        if math.isinf(self.buckets[-1]):
            self.buckets = self.buckets[:-1]

    def observe(self, value: float, *labels: str) -> None:
        key = self._check(labels)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = _Series(counts=[0] * len(self.buckets))
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                series.counts[i] += 1
        series.total += value
        series.count += 1

    def count(self, *labels: str) -> int:
        series = self._series.get(self._check(labels))
        return series.count if series else 0

    def samples(self) -> list[str]:
        series_by_key = dict(self._series)
        if not self.labels and not series_by_key:
            series_by_key[()] = _Series(counts=[0] * len(self.buckets))
        lines: list[str] = []
        for key, series in sorted(series_by_key.items()):
            for bound, cumulative in zip(self.buckets, series.counts, strict=True):
                lines.append(
                    f"{self.name}_bucket{_labels(self.labels, key, [('le', format_value(bound))])} {cumulative}"
                )
            lines.append(f"{self.name}_bucket{_labels(self.labels, key, [('le', '+Inf')])} {series.count}")
            lines.append(f"{self.name}_sum{_labels(self.labels, key)} {format_value(series.total)}")
            lines.append(f"{self.name}_count{_labels(self.labels, key)} {series.count}")
        return lines


def render(metrics: Iterable[_Metric]) -> str:
    """The exposition text of ``metrics``, one family after another, ending with a newline."""
    return "".join(line + "\n" for metric in metrics for line in metric.render())


@dataclass
class ServerMetrics:
    """What one server process measures."""

    connections: Gauge = field(default_factory=lambda: Gauge("agon_connections", "Open WebSocket connections."))
    connections_total: Counter = field(
        default_factory=lambda: Counter("agon_connections_total", "WebSocket connections accepted.")
    )
    dropped: Counter = field(
        default_factory=lambda: Counter(
            "agon_connections_dropped_total", "Connections closed by the server, by reason.", ("reason",)
        )
    )
    frames: Counter = field(default_factory=lambda: Counter("agon_frames_received_total", "Frames received."))
    commands: Counter = field(
        default_factory=lambda: Counter("agon_commands_total", "Commands handled, by outcome.", ("outcome",))
    )
    errors: Counter = field(
        default_factory=lambda: Counter("agon_errors_total", "Error messages sent, by code.", ("code",))
    )
    followed: Gauge = field(
        default_factory=lambda: Gauge(
            "agon_followed_contests", "Contests this process fans out (one subscription each)."
        )
    )
    append_seconds: Histogram = field(
        default_factory=lambda: Histogram(
            "agon_append_seconds", "Time to decide and durably append a command, in seconds."
        )
    )
    fanout_seconds: Histogram = field(
        default_factory=lambda: Histogram(
            "agon_fanout_seconds", "Time to compute every viewer's patch for an append and queue it, in seconds."
        )
    )

    lost_events: Counter = field(
        default_factory=lambda: Counter(
            "agon_store_lost_events_total",
            "Acknowledged events the store no longer holds (restored behind, lagging replica): should stay 0.",
        )
    )

    def all(self) -> list[_Metric]:
        return [
            self.connections,
            self.connections_total,
            self.dropped,
            self.frames,
            self.commands,
            self.errors,
            self.followed,
            self.append_seconds,
            self.fanout_seconds,
            self.lost_events,
        ]

    def render(self) -> str:
        return render(self.all())
