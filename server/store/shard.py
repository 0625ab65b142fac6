"""One part of a store as readiness sees it (``server.store.readiness``, ``GET /readyz``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """One part of the store: its name (``host:port`` of a Redis primary, ``sqlite``, ``memory``) and why it
    cannot be read from and appended to now (``""`` when it can)."""

    name: str
    problem: str = ""

    @property
    def ready(self) -> bool:
        return not self.problem


def all_ready(shards: Sequence[Shard]) -> bool:
    return bool(shards) and all(shard.ready for shard in shards)
