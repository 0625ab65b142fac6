"""Several `agon serve` processes on one Redis (or one Redis Cluster) share contests: one order, no fork, same
views; a process that loses Redis says so on /healthz and recovers when Redis is back."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from clients.python.client import AgonClient
from protocol.codec import decode
from protocol.events import Declare, Envelope
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.rulesets import ruleset
from server.store.redis import RedisStore
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerFactory, ServerProcess
from tests.e2e.reissue_race import OLD_LINKS, reissue_race
from tests.net.duel import ARIA_WINS, ap, duel


@pytest.fixture(params=["redis", "redis-cluster"])
def shared_url(request: pytest.FixtureRequest) -> str:
    """The store several processes share: one Redis server, or a 3-master Redis Cluster."""
    if request.param == "redis-cluster":
        return str(request.getfixturevalue("redis_cluster").url)
    return str(request.getfixturevalue("redis_url"))


async def test_clients_on_two_processes_see_one_contest(agon_server: ServerFactory, shared_url: str) -> None:
    redis_url = shared_url
    first, second = agon_server(store=redis_url), agon_server(store=redis_url)
    gm = await AgonClient.connect(first.ws_url)
    created = await gm.create(duel(contest=f"two-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(first.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    watcher = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.spectator)])
    # A second GM connection on the other process, to write concurrently with the first.
    gm2 = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.gm)])
    everyone = [gm, ann, bob, watcher, gm2]

    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    rolled = await gm2.command(contest, x.Roll(faces=ARIA_WINS))
    for client in everyone:
        mirror = await client.wait_version(contest, rolled.version)
        assert mirror.rules["last"]["result"] == "orc loses 8 AP"

    # Both processes write the same contest at once: every command lands once, in one gapless order.
    async def adjust(client: AgonClient, who: str, times: int) -> list[int]:
        versions = []
        for i in range(times):
            ack = await client.command(contest, x.Adjust(contestant="aria", delta=1, reason=f"{who} {i}"))
            versions.append(ack.version)
        return versions

    acked = await asyncio.gather(adjust(gm, "first", 10), adjust(gm2, "second", 10))
    versions = sorted(acked[0] + acked[1])
    assert len(set(versions)) == 20
    head = versions[-1]
    mirrors = [await client.wait_version(contest, head) for client in everyone]
    for mirror in mirrors:
        assert mirror.version == head
        assert ap(mirror.doc or {})["aria"] == 15 + 20
        assert mirror.desyncs == 0
    # Same versions in the same order for every client, whichever process it is on.
    orders = {tuple(to for _, to in mirror.patches) for mirror in mirrors}
    assert len(orders) == 1, orders

    await assert_gapless_and_audited(redis_url, contest, head)
    for client in everyone:
        await client.close()


async def assert_gapless_and_audited(store_url: str, contest: str, head: int) -> list[Envelope]:
    """The stored log of ``contest``: versions 1..head without a gap, and an audit that finds nothing."""
    store = RedisStore(store_url)
    try:
        envelopes = [decode(r.data, Envelope) for r in await store.read(contest)]
    finally:
        await store.close()
    assert [e.version for e in envelopes] == list(range(1, head + 1))
    report = audit(envelopes, ruleset)
    assert report.finding is None, report
    return envelopes


async def wait_health(server: ServerProcess, want: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        status, _ = await asyncio.to_thread(server.health)
        if status == want:
            return
        assert time.monotonic() < deadline, f"/healthz stayed {status}, expected {want}"
        await asyncio.sleep(0.1)


async def test_a_process_that_loses_redis_reports_503_and_recovers(
    agon_server: ServerFactory, private_redis: RedisServer
) -> None:
    server = agon_server(store=private_redis.url)
    status, body = server.health()
    assert status == 200 and body["store"] == "ok"
    private_redis.stop()
    await wait_health(server, 503)
    private_redis.start()
    await wait_health(server, 200)
    # And it serves again.
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    await gm.follow(created.contest, created.invitations.gm)
    await gm.close()


async def test_an_old_link_never_writes_after_its_reissue_on_another_process(
    agon_server: ServerFactory, redis_url: str
) -> None:
    """The GM re-issues Ann's link on one process a dozen times while eight connections holding her old link
    declare every 30 ms on the other: none of their commands is stored after the re-issue, and each new link
    is welcomed at once on the process that may not have read the re-issue yet."""
    first, second = agon_server(store=redis_url), agon_server(store=redis_url)
    report = await reissue_race(first.ws_url, second.ws_url, redis_url, reissues=12)
    assert report.reissues == 12
    assert report.old_link_acked > 12 * OLD_LINKS  # the old links did write before each re-issue
    assert report.stored_after_reissue == 0, report
    assert report.new_link_refused == 0, report
