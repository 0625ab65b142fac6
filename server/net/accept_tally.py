"""When to speak about connections that could not be accepted: at most one warning per interval, each with
the count of failures since the one before. Pure: the caller passes the time.

Out of file descriptors, every ``accept()`` fails, hundreds of times a second; one line per failure buries
the log and costs the descriptors' owners CPU. The first failure is told at once (an operator learns of it
the moment it starts), later ones are counted and told together, never more than once an ``interval``.
"""

from __future__ import annotations


class AcceptTally:
    """Failed accepts, counted between warnings."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.pending = 0  # failures not told yet
        self.total = 0  # failures since the start
        self._spoke: float | None = None  # when the last warning was told

    def failed(self, now: float) -> int | None:
        """Count one failure at ``now``: the number of failures to warn about now, or None to stay quiet (the
        failure is told with the next warning)."""
        self.pending += 1
        self.total += 1
        return self.due(now)

    def due(self, now: float) -> int | None:
        """The failures to warn about at ``now`` (then counted as told), or None: none is pending, or the last
        warning is less than an interval old."""
        if not self.pending or self.wait(now) > 0:
            return None
        told, self.pending, self._spoke = self.pending, 0, now
        return told

    def wait(self, now: float) -> float:
        """Seconds until a warning may be told again (0: now)."""
        if self._spoke is None:
            return 0.0
        return max(0.0, self._spoke + self.interval - now)
