"""A token bucket: how many frames a connection may send, on average and at once."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """Holds up to ``burst`` tokens, refilled at ``rate`` per second; each frame takes one."""

    __slots__ = ("_at", "_clock", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a token bucket needs a positive rate and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._at = clock()

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._at)
        self._at = now
        self._tokens = min(self.burst, self._tokens + elapsed * self.rate)

    def take(self, count: float = 1.0) -> bool:
        """Take ``count`` tokens if there are that many; False (taking none) when the bucket is short."""
        self._refill()
        if self._tokens >= count:
            self._tokens -= count
            return True
        return False
