"""The token bucket that limits how fast a connection may send."""

from __future__ import annotations

import pytest

from server.net.limits import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2.0, burst=5, clock=clock)
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]
    clock.now += 0.5
    assert bucket.take() and not bucket.take()
    clock.now += 10
    assert bucket.tokens == 5  # never more than the burst
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]


def test_a_refused_take_takes_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, burst=2, clock=clock)
    assert bucket.take(2)
    clock.now += 0.5
    assert not bucket.take()
    assert bucket.tokens == pytest.approx(0.5)
    clock.now += 0.5
    assert bucket.take()


def test_a_clock_going_backwards_adds_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, burst=1, clock=clock)
    assert bucket.take()
    clock.now -= 50
    assert not bucket.take()


@pytest.mark.parametrize(("rate", "burst"), [(0, 5), (-1, 5), (1, 0.5)])
def test_nonsense_limits_are_refused(rate: float, burst: float) -> None:
    with pytest.raises(ValueError):
        TokenBucket(rate=rate, burst=burst)
