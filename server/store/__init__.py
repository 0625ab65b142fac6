"""Event stores: the port, its backends, and ``open_store`` to pick one from a spec string."""

from __future__ import annotations

from server.store.memory import MemoryStore
from server.store.port import (
    CONFLICT_TAIL,
    BadBatchError,
    BehindError,
    ConflictError,
    DuplicateError,
    EventStore,
    Record,
    Snapshot,
    StoreError,
    UnavailableError,
)
from server.store.redis import RedisStore
from server.store.sqlite import DEFAULT_PATH, SqliteStore

DEFAULT_SPEC = f"sqlite:{DEFAULT_PATH}"


def open_store(spec: str) -> EventStore:
    """``sqlite:PATH``, ``redis://...`` / ``rediss://...``, ``redis-cluster://HOST:PORT[,...]``, or ``memory:``."""
    if spec.startswith(("redis://", "rediss://", "redis-cluster://")):
        return RedisStore(spec)
    if spec.startswith("sqlite:"):
        return SqliteStore(spec.removeprefix("sqlite:") or DEFAULT_PATH)
    if spec == "memory:":
        return MemoryStore()
    raise ValueError(
        f"unknown store spec {spec!r}: use sqlite:PATH, redis://HOST:PORT/DB, redis-cluster://HOST:PORT or memory:"
    )


__all__ = [
    "CONFLICT_TAIL",
    "DEFAULT_SPEC",
    "BadBatchError",
    "BehindError",
    "ConflictError",
    "DuplicateError",
    "EventStore",
    "MemoryStore",
    "Record",
    "RedisStore",
    "Snapshot",
    "SqliteStore",
    "StoreError",
    "UnavailableError",
    "open_store",
]
