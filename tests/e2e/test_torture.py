"""Short proving runs in the suite (the long ones: ``python -m tests.torture``): SIGKILLed ``agon serve``
on sqlite and Redis, SIGKILLed ``redis-server`` with ``appendfsync always``, a power loss under ``appendfsync
everysec``, and the mutational fuzzer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.torture import EVERYSEC_WINDOW, Tally, crash_loop, fuzz, redis_faults, takeover_loop


def assert_clean(tally: Tally) -> None:
    assert tally.failures == []
    assert tally.leaks == 0
    assert tally.lost_acknowledged == {}


@pytest.mark.parametrize("store", ["sqlite", "redis"])
async def test_agon_serve_killed_with_sigkill_loses_and_repeats_nothing(store: str, tmp_path: Path) -> None:
    tally = Tally()
    await crash_loop(store, 3, tally, tmp_path, pause=0.4)
    assert_clean(tally)
    assert tally.kills == 3 and tally.commands_verified > 20


async def test_the_process_hosting_the_contests_killed_again_and_again_loses_and_repeats_nothing(
    tmp_path: Path,
) -> None:
    tally = Tally()
    await takeover_loop(3, tally, tmp_path, pause=0.4)
    assert_clean(tally)
    assert tally.kills == 3 and tally.commands_verified > 20


async def test_redis_killed_with_appendfsync_always_loses_nothing(tmp_path: Path) -> None:
    tally = Tally()
    await redis_faults("always", 2, tally, tmp_path, pause=0.4)
    assert_clean(tally)
    assert tally.redis_kills == 2 and tally.commands_verified > 10
    assert tally.health_503_seen


async def test_a_power_loss_with_appendfsync_everysec_loses_at_most_the_last_second_and_says_so(
    tmp_path: Path,
) -> None:
    tally = Tally()
    # Each kill cuts Redis's append-only file back to its length 0.5 to 1 s before: the last fsync's.
    serve = await redis_faults("everysec", 2, tally, tmp_path, pause=0.8, since_fsync=(0.5, EVERYSEC_WINDOW))
    # No fork, no gap, every client (its viewers resynchronised) shows what a fresh client shows.
    assert tally.failures == [] and tally.leaks == 0
    losses = tally.losses["redis-everysec-power-loss"]
    assert len(losses) == 2 and tally.commands_verified > 5  # the contests went on after the losses
    lost = sum(loss.commands for loss in losses)
    assert lost > 0 and tally.lost_acknowledged == {"redis-everysec-power-loss": lost}
    # Nothing acknowledged before the last fsync is lost: Agon loses no more than Redis did (at most the
    # second Redis documents; the file's length is sampled every 10 ms).
    assert all(loss.window <= loss.cut + 0.1 for loss in losses), losses
    # Reported loudly: /healthz, the metric, the log.
    assert serve.reported is not None
    assert serve.reported.health["status"] == "lost_events"
    assert sum(serve.reported.health["lost_events"].values()) >= 1
    counted = [line for line in serve.reported.metrics.splitlines() if line.startswith("agon_store_lost_events_total ")]
    assert counted and float(counted[0].split()[1]) >= 1
    assert "STORE LOST ACKNOWLEDGED EVENTS" in serve.reported.log


async def test_mutated_frames_are_refused_or_handled_in_bounded_time() -> None:
    tally = Tally()
    await fuzz(3000, tally)
    assert tally.failures == [] and tally.fuzz_inputs == 3000
    assert tally.slowest_frame < 0.5
