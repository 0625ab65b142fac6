"""The server's metrics, kept by prometheus_client and read back the way Prometheus reads a scrape."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from server.net.metrics import CONTENT_TYPE, Counter, Gauge, Histogram, ServerMetrics


def scrape(metrics: ServerMetrics) -> dict[str, tuple[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]]:
    """family name -> (type, {(sample name, labels): value}), parsed from the exposition text."""
    return {
        family.name: (
            family.type,
            {(s.name, tuple(sorted(s.labels.items()))): s.value for s in family.samples},
        )
        for family in text_string_to_metric_families(metrics.render())
    }


def test_every_family_is_exposed_with_its_type_under_its_documented_name() -> None:
    families = {name: kind for name, (kind, _) in scrape(ServerMetrics()).items()}
    # prometheus_client names a counter family without its _total suffix; the samples keep it.
    assert families == {
        "agon_connections": "gauge",
        "agon_connections_accepted": "counter",
        "agon_connections_dropped": "counter",
        "agon_frames_received": "counter",
        "agon_commands": "counter",
        "agon_errors": "counter",
        "agon_followed_contests": "gauge",
        "agon_append_seconds": "histogram",
        "agon_fanout_seconds": "histogram",
        "agon_store_lost_events": "counter",
        "agon_ready": "gauge",
        "agon_store_shard_up": "gauge",
        "agon_store_errors": "counter",
        "agon_contests_hosted": "gauge",
        "agon_contests_relayed": "gauge",
        "agon_contest_takeovers": "counter",
        "agon_relay_lag_seconds": "histogram",
        # the process's own (prometheus_client's ProcessCollector), descriptors among them
        "process_virtual_memory_bytes": "gauge",
        "process_resident_memory_bytes": "gauge",
        "process_start_time_seconds": "gauge",
        "process_cpu_seconds": "counter",
        "process_open_fds": "gauge",
        "process_max_fds": "gauge",
    }
    assert CONTENT_TYPE.startswith("text/plain; version=0.0.4")


def test_counts_gauges_and_histograms_read_back_as_scraped() -> None:
    metrics = ServerMetrics()
    metrics.commands.inc("ok")
    metrics.commands.inc("ok")
    metrics.commands.inc("refused")
    metrics.connections.inc()
    metrics.connections.inc()
    metrics.connections.dec()
    for value in (0.0004, 0.002, 0.3, 30.0):
        metrics.append_seconds.observe(value)
    scraped = scrape(metrics)
    commands = scraped["agon_commands"][1]
    assert commands[("agon_commands_total", (("outcome", "ok"),))] == 2
    assert commands[("agon_commands_total", (("outcome", "refused"),))] == 1
    assert scraped["agon_connections"][1][("agon_connections", ())] == 1
    buckets = scraped["agon_append_seconds"][1]
    assert buckets[("agon_append_seconds_bucket", (("le", "0.0005"),))] == 1
    assert buckets[("agon_append_seconds_bucket", (("le", "0.0025"),))] == 2
    assert buckets[("agon_append_seconds_bucket", (("le", "10.0"),))] == 3
    assert buckets[("agon_append_seconds_bucket", (("le", "+Inf"),))] == 4
    assert buckets[("agon_append_seconds_count", ())] == 4
    assert buckets[("agon_append_seconds_sum", ())] == pytest.approx(30.3024)
    assert (metrics.commands.value("ok"), metrics.connections.value(), metrics.append_seconds.count()) == (2, 1, 4)


def test_label_values_are_escaped_and_read_back_intact() -> None:
    metrics = ServerMetrics()
    metrics.errors.inc('a"b\\c\nd')
    assert scrape(metrics)["agon_errors"][1] == {("agon_errors_total", (("code", 'a"b\\c\nd'),)): 1}


def test_two_servers_in_one_process_keep_their_own_counts() -> None:
    first, second = ServerMetrics(), ServerMetrics()
    first.frames.inc()
    assert (first.frames.value(), second.frames.value()) == (1, 0)


def test_misuse_is_refused() -> None:
    registry = CollectorRegistry()
    with pytest.raises(ValueError):
        Counter(registry, "c_total", "c").inc(amount=-1)
    with pytest.raises(ValueError):
        Counter(registry, "d_total", "d", ("code",)).inc()
    with pytest.raises(ValueError):
        Gauge(registry, "g", "g", ("code",)).set(1)
    with pytest.raises(ValueError):
        Histogram(registry, "h", "h", buckets=(2.0, 1.0))
