"""A contest folded once in the cluster: three `agon serve` processes on a real Redis Cluster, a table's
connections spread over all three (as round robin spreads them). One process hosts the contest — it alone
builds views — and the others relay its frames. Killed without warning mid-contest, its host is replaced by
another process within seconds: the viewers on the survivors play on, and nothing acknowledged is lost or
doubled. Frozen past its liveness instead (a long pause), it is replaced the same way, and relays the new host
when it wakes."""

from __future__ import annotations

import asyncio
import signal
import time
import uuid

from clients.python.client import AgonClient
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.conftest import RedisClusterServers
from tests.e2e.conftest import ServerFactory, ServerProcess
from tests.e2e.test_processes import assert_gapless_and_audited
from tests.e2e.test_proxy import WAIT, until_acked
from tests.e2e.test_slow_consumer import metric
from tests.net.duel import ARIA_WINS, ap, duel


def fanned_out(server: ServerProcess) -> float:
    """How many batches the process built views for (its fan-out histogram's count)."""
    return metric(server, "agon_fanout_seconds_count")


async def test_one_process_folds_a_contest_and_another_takes_it_over_when_it_is_killed(
    agon_server: ServerFactory, redis_cluster: RedisClusterServers
) -> None:
    host, second, third = (agon_server(store=str(redis_cluster.url)) for _ in range(3))
    gm = await AgonClient.connect(host.ws_url)
    created = await gm.create(duel(contest=f"hosted-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)  # the first viewer: this process hosts the contest
    ann = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.seats["ann"])], resume=True)
    bob = await AgonClient.connect(third.ws_url, follow=[Follow(contest, invitations.seats["bob"])], resume=True)
    watcher = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.spectator)], resume=True)
    gm2 = await AgonClient.connect(third.ws_url, follow=[Follow(contest, invitations.gm)], resume=True)
    survivors = [ann, bob, watcher, gm2]
    try:
        before = {server.port: fanned_out(server) for server in (second, third)}
        await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
        await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
        rolled = await gm2.command(contest, x.Roll(faces=ARIA_WINS))
        for client in (gm, *survivors):
            mirror = await client.wait_version(contest, rolled.version)
            assert mirror.in_sync and mirror.rules["last"]["result"] == "orc loses 8 AP"
        # Folded once: the relays built no view, the host one per batch; each says which it does.
        assert [fanned_out(server) for server in (second, third)] == [before[second.port], before[third.port]]
        assert fanned_out(host) >= 3
        assert metric(host, "agon_contests_hosted") == 1
        assert [metric(s, "agon_contests_relayed") for s in (second, third)] == [1, 1]

        # The host dies without a word. A survivor takes the contest over; commands sent meanwhile are
        # retried with their ids until acknowledged, each stored once.
        host.kill()
        killed = time.monotonic()
        first = await until_acked(gm2, contest, x.Adjust(contestant="aria", delta=1, reason="after the host died"))
        takeover = time.monotonic() - killed
        print(f"takeover: the first command after the host's death acknowledged {takeover:.2f} s later")
        assert takeover < 15
        acks = [first] + [
            await until_acked(gm2, contest, x.Adjust(contestant="aria", delta=1, reason=f"then {i}")) for i in range(5)
        ]
        head = max(ack.version for ack in acks)
        for client in survivors:
            mirror = await client.wait_version(contest, head, timeout=WAIT)
            assert mirror.in_sync
            assert ap(mirror.doc or {})["aria"] == 15 + 6  # each adjustment exactly once
        assert sum(metric(s, "agon_contest_takeovers_total") for s in (second, third)) == 1
        assert sorted(metric(s, "agon_contests_hosted") for s in (second, third)) == [0, 1]
    finally:
        for client in (gm, *survivors):
            await client.close()
    await assert_gapless_and_audited(str(redis_cluster.url), contest, head)


async def test_a_host_frozen_past_its_liveness_is_replaced_and_relays_the_new_host_when_it_wakes(
    agon_server: ServerFactory, redis_url: str
) -> None:
    host, other = agon_server(store=redis_url), agon_server(store=redis_url)
    gm = await AgonClient.connect(host.ws_url)
    created = await gm.create(duel(contest=f"frozen-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(other.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    gm2 = await AgonClient.connect(other.ws_url, follow=[Follow(contest, invitations.gm)])
    clients = [gm, ann, gm2]
    try:
        assert metric(host, "agon_contests_hosted") == 1
        assert host.process is not None
        host.process.send_signal(signal.SIGSTOP)  # a frozen VM, a long pause: no liveness renewed
        try:
            paused = await until_acked(gm2, contest, x.Adjust(contestant="aria", delta=1, reason="while it sleeps"))
            assert metric(other, "agon_contests_hosted") == 1
        finally:
            host.process.send_signal(signal.SIGCONT)
        # Awake, the former host finds it was not seen alive and relays the new host; its GM plays on.
        woke = await until_acked(gm, contest, x.Adjust(contestant="aria", delta=1, reason="after it woke"))
        assert woke.version > paused.version
        deadline = time.monotonic() + WAIT
        while metric(host, "agon_contests_hosted") != 0 or metric(host, "agon_contests_relayed") != 1:
            assert time.monotonic() < deadline, "the woken process still hosts the contest"
            await asyncio.sleep(0.1)
        for client in clients:
            mirror = await client.wait_version(contest, woke.version, timeout=WAIT)
            assert mirror.in_sync and ap(mirror.doc or {})["aria"] == 15 + 2  # each adjustment once
    finally:
        for client in clients:
            await client.close()
    await assert_gapless_and_audited(redis_url, contest, woke.version)
