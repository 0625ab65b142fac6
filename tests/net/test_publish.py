"""A process publishes its own appends straight from the append: its viewers do not wait for the store
to be read back (the store's subscription is for other processes' appends and for gaps)."""

from __future__ import annotations

import asyncio
import json

from protocol.rulesets import extended as x
from server.store.memory import MemoryStore
from server.store.port import Record
from tests.net.conftest import Start
from tests.net.test_server import open_duel


class SlowReads(MemoryStore):
    """A store whose reads after the contest is followed hang until released (appends stay fast)."""

    def __init__(self) -> None:
        super().__init__()
        self.stuck = False
        self.released = asyncio.Event()

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        if self.stuck:
            await self.released.wait()
        return await super().read(contest, after, limit)


async def test_a_command_reaches_its_viewers_while_reading_the_store_back_hangs(start: Start) -> None:
    store = SlowReads()
    server = await start(store=store)
    gm, created = await open_duel(server)
    store.stuck = True
    try:
        async with asyncio.timeout(5):
            ack = await gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="a wound"))
        patches = [json.loads(f)["to"] for f in gm.frames if json.loads(f)["type"] == "patch"]
        assert ack.version in patches
        assert gm.mirrors[created.contest].version == ack.version
    finally:
        store.released.set()
        await gm.close()
