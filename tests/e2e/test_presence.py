"""Presence across real `agon serve` processes on one Redis (or one Redis Cluster): a seat held on one process
shows on the pages of the other within a second, and goes within a second when its connection closes."""

from __future__ import annotations

import uuid

import pytest

from clients.python.client import AgonClient
from protocol.messages import Follow
from tests.e2e.conftest import ServerFactory
from tests.net.duel import duel
from tests.net.test_presence import SECOND, held, here


@pytest.fixture(params=["redis", "redis-cluster"])
def shared_url(request: pytest.FixtureRequest) -> str:
    if request.param == "redis-cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return str(request.getfixturevalue("redis_url"))


async def test_two_processes_see_each_others_seats_within_a_second(agon_server: ServerFactory, shared_url: str) -> None:
    first, second = agon_server(store=shared_url), agon_server(store=shared_url)
    gm = await AgonClient.connect(first.ws_url)
    created = await gm.create(duel(contest=f"here-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    await gm.wait_presence(contest, here("gm"), timeout=SECOND)

    ann = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    watcher = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.spectator)])
    await gm.wait_presence(contest, lambda p: held(p)["ann"] and p.spectators == 1, timeout=SECOND)
    seen = await ann.wait_presence(contest, lambda p: held(p)["gm"] and p.spectators == 1, timeout=SECOND)
    assert held(seen) == {"gm": True, "ann": True, "bob": False}

    bob = await AgonClient.connect(first.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    await ann.wait_presence(contest, here("bob"), timeout=SECOND)

    await ann.close()  # its page closes: the other process's pages see Ann go
    await gm.wait_presence(contest, here("ann", False), timeout=SECOND)
    await bob.wait_presence(contest, here("ann", False), timeout=SECOND)
    await watcher.close()
    await gm.wait_presence(contest, lambda p: p.spectators == 0, timeout=SECOND)
    await gm.close()
    await bob.close()
