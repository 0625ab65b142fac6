"""Faults found by probing ``agon serve`` from outside, each reproduced through real loopback sockets."""

from __future__ import annotations

import asyncio

from clients.python.client import AgonClient
from protocol import extended as x
from protocol.messages import Follow
from server.service import ContestService
from server.store.memory import MemoryStore
from tests.engine.table import GM
from tests.net.conftest import Start
from tests.net.test_server import get, open_duel


def gm_adjust(delta: int, reason: str) -> x.Adjust:
    return x.Adjust(contestant="orc", delta=delta, reason=reason)


async def test_a_store_that_comes_back_behind_resyncs_the_viewers_and_is_reported(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    gm, created = await open_duel(server)
    contest = created.contest
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    for i in range(3):
        head = (await gm.command(contest, gm_adjust(-1, f"wound {i}"))).version
    await ann.wait_version(contest, head)
    welcomes = len(ann.mirrors[contest].welcomes)

    events = store._events[contest]  # the store comes back without the last acknowledged event
    del store._ids[contest][events[-1].event_id]
    del events[-1]
    elsewhere = ContestService(store)  # another process writes a new history from there
    for i in range(2):
        await elsewhere.execute(contest, GM, f"elsewhere-{i}", gm_adjust(-2, f"elsewhere {i}"))

    mirror = await ann.wait_version(contest, head + 1)
    assert len(mirror.welcomes) > welcomes and mirror.welcomes[-1].view is not None
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    assert fresh.mirrors[contest].doc == mirror.doc
    status, body = await asyncio.to_thread(get, f"{server.url}healthz")
    assert status == 200 and body["status"] == "lost_events" and body["lost_events"] == {contest: 1}
    assert "agon_store_lost_events_total 1" in server.context.metrics.render()
    # And commands through this process go on, chained to what the store holds.
    after = await gm.command(contest, gm_adjust(-1, "after"))
    assert after.version == head + 2
    for client in (gm, ann, fresh):
        await client.close()
