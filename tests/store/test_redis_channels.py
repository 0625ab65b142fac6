"""A subscription Redis confirms late: the tails that stopped waiting for it know it is not confirmed (and so read
their streams often, as an append may have been published before it held) until the confirmation comes.

A unit test: the pub/sub connection is a double whose confirmations come when the test says.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.store.redis_channels import Channels


class LatePubSub:
    """Takes subscriptions and confirms each only when told."""

    def __init__(self) -> None:
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def ssubscribe(self, channel: str) -> None:
        return None

    async def sunsubscribe(self, channel: str) -> None:
        return None

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        try:
            async with asyncio.timeout(timeout):
                return await self.messages.get()
        except TimeoutError:
            return None

    async def aclose(self) -> None:
        return None

    def confirm(self, channel: str) -> None:
        self.messages.put_nowait({"type": "ssubscribe", "channel": channel.encode(), "data": 1})


class LateClient:
    def __init__(self) -> None:
        self.connection = LatePubSub()

    def pubsub(self) -> LatePubSub:
        return self.connection


async def sharded() -> bool:
    return True


async def test_a_join_that_stopped_waiting_learns_when_the_subscription_is_confirmed() -> None:
    client = LateClient()
    channels = Channels("late", client, sharded)  # type: ignore[arg-type]
    try:
        first = await channels.join("agon:{c}:notify", 0.05)
        second = await channels.join("agon:{c}:notify", 0.05)  # joins the subscription still unconfirmed
        assert not first.confirmed and not second.confirmed
        client.connection.confirm("agon:{c}:notify")
        async with asyncio.timeout(5):
            while not (first.confirmed and second.confirmed):
                await asyncio.sleep(0.01)
        third = await channels.join("agon:{c}:notify", 0.05)  # the subscription holds: confirmed at once
        assert third.confirmed
        prompt = await channels.join("agon:{d}:notify", 5.0)
        assert not prompt.confirmed
    finally:
        await channels.close()


async def test_a_join_confirmed_in_time_is_confirmed() -> None:
    client = LateClient()
    channels = Channels("late", client, sharded)  # type: ignore[arg-type]
    try:
        joining = asyncio.create_task(channels.join("agon:{c}:notify", 5.0))
        await asyncio.sleep(0.05)
        client.connection.confirm("agon:{c}:notify")
        heard = await joining
        assert heard.confirmed
    finally:
        await channels.close()
