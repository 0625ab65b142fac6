"""``board_for``: the presence board that goes with a store (see ``server.store.presence``), one per backend."""

from __future__ import annotations

from server.store.port import EventStore
from server.store.presence import TTL, Changed, PresenceBoard
from server.store.presence_memory import MemoryBoard
from server.store.presence_redis import RedisBoard
from server.store.presence_sqlite import SqliteBoard
from server.store.redis import RedisStore
from server.store.sqlite import SqliteStore


def board_for(store: EventStore, on_change: Changed, *, ttl: float = TTL) -> PresenceBoard:
    """The board that goes with ``store``: in Redis or in the SQLite file for those, else in this process."""
    if isinstance(store, RedisStore):
        return RedisBoard(store, on_change, ttl=ttl)
    if isinstance(store, SqliteStore):
        return SqliteBoard(store, on_change, ttl=ttl)
    return MemoryBoard(store, on_change, ttl=ttl)
