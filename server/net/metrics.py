"""What one server process measures, kept and exposed by ``prometheus_client`` (text format 0.0.4).

Every process has its own registry, so several servers in one Python process (the tests) never mix
their counts. Names are those Agon has always exposed, with one exception: the number of connections
accepted is ``agon_connections_accepted_total`` (it was ``agon_connections_total``, a name
prometheus_client reserves for the counter family of the ``agon_connections`` gauge).
"""

from __future__ import annotations

from collections.abc import Sequence

import prometheus_client
from prometheus_client import CollectorRegistry, ProcessCollector, generate_latest

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"  # what generate_latest writes, as every scraper reads it

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: they only add noise to scrapes


class _Family:
    """One metric family and its label names; values are read back from the registry."""

    def __init__(self, registry: CollectorRegistry, name: str, labels: Sequence[str]) -> None:
        self.registry = registry
        self.name = name
        self.labels = tuple(labels)

    def _check(self, values: Sequence[str]) -> tuple[str, ...]:
        if len(values) != len(self.labels):
            raise ValueError(f"{self.name} takes labels {self.labels}, got {tuple(values)}")
        return tuple(values)

    def _sample(self, suffix: str, values: Sequence[str]) -> float:
        labels = dict(zip(self.labels, self._check(values), strict=True))
        return self.registry.get_sample_value(self.name + suffix, labels) or 0.0


class Counter(_Family):
    """A total that only goes up (``name`` ends in ``_total``)."""

    def __init__(self, registry: CollectorRegistry, name: str, help: str, labels: Sequence[str] = ()) -> None:
        super().__init__(registry, name, labels)
        self._metric = prometheus_client.Counter(name, help, self.labels, registry=registry)
        self._children: dict[tuple[str, ...], prometheus_client.Counter] = {}  # one per label values seen

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        if amount < 0:
            raise ValueError("a counter only goes up")
        child = self._children.get(labels) if self.labels else self._metric
        if child is None:
            child = self._children[labels] = self._metric.labels(*self._check(labels))
        child.inc(amount)

    def value(self, *labels: str) -> float:
        return self._sample("", labels)


class Gauge(_Family):
    """A value that goes up and down."""

    def __init__(self, registry: CollectorRegistry, name: str, help: str, labels: Sequence[str] = ()) -> None:
        super().__init__(registry, name, labels)
        self._metric = prometheus_client.Gauge(name, help, self.labels, registry=registry)

    def _child(self, labels: Sequence[str]) -> prometheus_client.Gauge:
        return self._metric.labels(*self._check(labels)) if self.labels else self._metric

    def set(self, value: float, *labels: str) -> None:
        self._child(labels).set(value)

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._child(labels).inc(amount)

    def dec(self, *labels: str, amount: float = 1.0) -> None:
        self._child(labels).dec(amount)

    def clear(self) -> None:
        """Forget every labelled value (e.g. shards that are gone), keeping the family."""
        self._metric.clear()

    def value(self, *labels: str) -> float:
        return self._sample("", labels)


class Histogram(_Family):
    """Observations counted into cumulative buckets (``le``), with their sum and count."""

    def __init__(self, registry: CollectorRegistry, name: str, help: str, buckets: Sequence[float] = LATENCY_BUCKETS):
        super().__init__(registry, name, ())
        self._metric = prometheus_client.Histogram(name, help, registry=registry, buckets=tuple(buckets))

    def observe(self, value: float) -> None:
        self._metric.observe(value)

    def count(self) -> int:
        return int(self._sample("_count", ()))


class ServerMetrics:
    """What one server process measures."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry()
        # the process's own: CPU, memory, and open descriptors against their limit (process_open_fds,
        # process_max_fds), which an operator alerts on before accepts fail (deploy/prometheus/alerts.yml)
        ProcessCollector(registry=registry)
        self.connections = Gauge(registry, "agon_connections", "Open WebSocket connections.")
        self.connections_total = Counter(registry, "agon_connections_accepted_total", "WebSocket connections accepted.")
        self.dropped = Counter(
            registry, "agon_connections_dropped_total", "Connections closed by the server, by reason.", ("reason",)
        )
        self.frames = Counter(registry, "agon_frames_received_total", "Frames received.")
        self.commands = Counter(registry, "agon_commands_total", "Commands handled, by outcome.", ("outcome",))
        self.errors = Counter(registry, "agon_errors_total", "Error messages sent, by code.", ("code",))
        self.followed = Gauge(
            registry, "agon_followed_contests", "Contests this process fans out (one subscription each)."
        )
        self.append_seconds = Histogram(
            registry, "agon_append_seconds", "Time to decide and durably append a command, in seconds."
        )
        self.fanout_seconds = Histogram(
            registry,
            "agon_fanout_seconds",
            "Time to compute every viewer's patch for an append and queue it, in seconds.",
        )
        self.lost_events = Counter(
            registry,
            "agon_store_lost_events_total",
            "Acknowledged events the store no longer holds (restored behind, lagging replica): should stay 0.",
        )
        self.ready = Gauge(
            registry,
            "agon_ready",
            "1 while this process can read from and append to every shard of its store and is not shutting down "
            "(GET /readyz answers 200), else 0. Brought up to date by /readyz and by each scrape.",
        )
        self.store_shard_up = Gauge(
            registry,
            "agon_store_shard_up",
            "1 when the last readiness probe of the shard (a Redis primary's host:port, sqlite, memory) read and "
            "wrote it, else 0.",
            ("shard",),
        )
        self.store_errors = Counter(
            registry,
            "agon_store_errors_total",
            "Store errors by shard: readiness probes that failed, and requests refused store/unavailable (by the "
            "shard this process knew for their contest).",
            ("shard",),
        )

        self.hosted = Gauge(
            registry,
            "agon_contests_hosted",
            "Contests this process hosts: it folds them and builds their views for every process's viewers.",
        )
        self.relayed = Gauge(
            registry,
            "agon_contests_relayed",
            "Contests this process relays: another process hosts them and sends the frames of its viewers here.",
        )
        self.takeovers = Counter(
            registry,
            "agon_contest_takeovers_total",
            "Contests this process began to host after their host died, shut down or lost them.",
        )
        self.relay_lag_seconds = Histogram(
            registry,
            "agon_relay_lag_seconds",
            "From a host sending a batch's frames to this process handing them to its viewers, in seconds (by the "
            "two processes' clocks: keep them in sync).",
        )

    def render(self) -> str:
        return generate_latest(self.registry).decode("utf-8")
