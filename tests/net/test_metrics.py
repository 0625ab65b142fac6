"""The Prometheus text format, written by hand."""

from __future__ import annotations

import math

import pytest

from server.net.metrics import Counter, Gauge, Histogram, ServerMetrics, format_value, render


def test_counters_and_gauges() -> None:
    commands = Counter("agon_commands_total", "Commands handled, by outcome.", ("outcome",))
    commands.inc("ok")
    commands.inc("ok")
    commands.inc("refused")
    connections = Gauge("agon_connections", "Open connections.")
    connections.inc()
    connections.inc()
    connections.dec()
    assert render([commands, connections]) == (
        "# HELP agon_commands_total Commands handled, by outcome.\n"
        "# TYPE agon_commands_total counter\n"
        'agon_commands_total{outcome="ok"} 2\n'
        'agon_commands_total{outcome="refused"} 1\n'
        "# HELP agon_connections Open connections.\n"
        "# TYPE agon_connections gauge\n"
        "agon_connections 1\n"
    )


def test_a_histogram_has_cumulative_buckets_a_sum_and_a_count() -> None:
    latency = Histogram("agon_append_seconds", "Append latency.", buckets=(0.1, 1.0))
    for value in (0.05, 0.1, 0.5, 3.0):
        latency.observe(value)
    assert latency.render() == [
        "# HELP agon_append_seconds Append latency.",
        "# TYPE agon_append_seconds histogram",
        'agon_append_seconds_bucket{le="0.1"} 2',
        'agon_append_seconds_bucket{le="1"} 3',
        'agon_append_seconds_bucket{le="+Inf"} 4',
        "agon_append_seconds_sum 3.65",
        "agon_append_seconds_count 4",
    ]
    assert latency.count() == 4


def test_an_empty_metric_without_labels_shows_zero() -> None:
    assert Counter("c_total", "c").samples() == ["c_total 0"]
    assert Histogram("h", "h", buckets=(1.0,)).samples() == [
        'h_bucket{le="1"} 0',
        'h_bucket{le="+Inf"} 0',
        "h_sum 0",
        "h_count 0",
    ]


def test_label_values_and_help_are_escaped() -> None:
    errors = Counter("agon_errors_total", 'Errors\nby "code" \\ kind.', ("code",))
    errors.inc('a"b\\c\nd')
    lines = errors.render()
    assert lines[0] == '# HELP agon_errors_total Errors\\nby "code" \\\\ kind.'
    assert lines[2] == 'agon_errors_total{code="a\\"b\\\\c\\nd"} 1'


def test_values_are_written_as_prometheus_reads_them() -> None:
    assert [format_value(v) for v in (3.0, 0.25, math.inf, -math.inf, math.nan, 1e300)] == [
        "3",
        "0.25",
        "+Inf",
        "-Inf",
        "NaN",
        "1e+300",
    ]


def test_misuse_is_refused() -> None:
    with pytest.raises(ValueError):
        Counter("c", "c").inc(amount=-1)
    with pytest.raises(ValueError):
        Counter("c", "c", ("code",)).inc()
    with pytest.raises(ValueError):
        Histogram("h", "h", buckets=(2.0, 1.0))


def test_the_servers_metrics_render_every_family() -> None:
    metrics = ServerMetrics()
    metrics.append_seconds.observe(0.002)
    text = metrics.render()
    assert text.endswith("\n")
    families = [line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")]
    assert families == [
        "agon_connections",
        "agon_connections_total",
        "agon_connections_dropped_total",
        "agon_frames_received_total",
        "agon_commands_total",
        "agon_errors_total",
        "agon_followed_contests",
        "agon_append_seconds",
        "agon_fanout_seconds",
        "agon_store_lost_events_total",
    ]
    assert 'agon_append_seconds_bucket{le="0.0025"} 1' in text
