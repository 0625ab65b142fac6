"""The metric shapes the feeds keep (``server.net.metrics`` makes them): below the sockets, only these Protocols."""

from __future__ import annotations

from typing import Protocol


class Observed(Protocol):
    def observe(self, amount: float) -> None: ...


class Gauged(Protocol):
    def set(self, value: float) -> None: ...


class Counted(Protocol):
    def inc(self, *labels: str, amount: float = 1.0) -> None: ...
