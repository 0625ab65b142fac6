"""When a command's answer may go: after its batch is published to the viewers (a viewer gets a command's patch
before its ack), or — when that does not happen in time — once the store is known to still hold it."""

from __future__ import annotations

from typing import Protocol

from protocol import errors
from protocol.errors import Refused
from server.service import ContestService, Result


class Publishing(Protocol):
    async def reached(self, version: int, timeout: float) -> bool: ...


async def published(feed: Publishing, service: ContestService, result: Result, wait: float) -> None:
    """Wait for ``feed`` to publish a command's batch. When it is not published in time (the store dropped out
    meanwhile), the answer says only what the store still holds: a store that came back without the batch
    (restarted behind) lost it, and the client is told to send the command again (raises Refused)."""
    if await feed.reached(result.version, wait) or not result.envelopes:
        return
    if await service.check_lost(result.contest, result.version, result.envelopes[-1].hash):
        raise Refused(errors.UNAVAILABLE, "the store lost this command after taking it: send it again")
