"""Short proving runs in the suite (the long ones: ``python -m tests.torture``): SIGKILLed ``agon serve``
on sqlite and Redis, SIGKILLed ``redis-server`` with ``appendfsync always``, and the mutational fuzzer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.torture import Tally, crash_loop, fuzz, redis_faults


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


async def test_redis_killed_with_appendfsync_always_loses_nothing(tmp_path: Path) -> None:
    tally = Tally()
    await redis_faults("always", 2, tally, tmp_path, pause=0.4)
    assert_clean(tally)
    assert tally.redis_kills == 2 and tally.commands_verified > 10
    assert tally.health_503_seen


async def test_mutated_frames_are_refused_or_handled_in_bounded_time() -> None:
    tally = Tally()
    await fuzz(3000, tally)
    assert tally.failures == [] and tally.fuzz_inputs == 3000
    assert tally.slowest_frame < 0.5
