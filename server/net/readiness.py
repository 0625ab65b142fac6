"""``GET /readyz``: whether this process should get traffic — its store can be read from and appended to, every
shard of it (``server.store.readiness``), and it is not shutting down. ``/healthz`` stays the coarser "alive and its
store answers a ping" it has always been.

Each answer also brings the gauges up to date: ``agon_ready`` and ``agon_store_shard_up{shard}`` (the backend counts
failed probes in ``agon_store_errors_total{shard}``). The store is asked at most once a second (the backend caches
its answer), so a load balancer polling many times a second and the scrapes cost one probe per second.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from server.net.context import ServerContext


async def readiness(ctx: ServerContext) -> tuple[HTTPStatus, dict[str, Any]]:
    """The status and JSON body of ``/readyz``: each shard named with ``ok`` or what failed (no credentials)."""
    store_ready, shards = await ctx.backend.ready(ctx.settings.health_timeout)
    ready = store_ready and not ctx.draining
    metrics = ctx.metrics
    metrics.ready.set(1.0 if ready else 0.0)
    metrics.store_shard_up.clear()  # shards that are gone (a primary replaced by its replica) are no longer listed
    for shard in shards:
        metrics.store_shard_up.set(1.0 if shard.ready else 0.0, shard.name)
    body: dict[str, Any] = {
        "status": "draining" if ctx.draining else "ready" if store_ready else "not_ready",
        "shards": {shard.name: shard.problem or "ok" for shard in shards},
    }
    return (HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE), body
