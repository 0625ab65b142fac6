"""A contest played through two `agon serve` processes on a real 3-master Redis Cluster while the slot of its
hash tag moves to another master: every acknowledged command is in the log once, versions are gapless, a
spectator on the other process follows to the end, and `agon verify` passes on the export."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

from clients.python.client import AgonClient, Refusal
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.conftest import RedisClusterServers
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_import import agon
from tests.net.duel import ap, duel
from tests.store.slots import masters, migrate_slot, moving_cluster, owner_of

__all__ = ["moving_cluster"]  # the fixture


async def test_a_contest_goes_on_while_its_slot_moves_to_another_master(
    agon_server: ServerFactory, moving_cluster: RedisClusterServers, tmp_path: Path
) -> None:
    url = moving_cluster.url
    first, second = agon_server(store=url), agon_server(store=url)
    gm = await AgonClient.connect(first.ws_url)
    created = await gm.create(duel(contest=f"moving-{uuid.uuid4().hex[:8]}"))
    contest = created.contest
    await gm.follow(contest, created.invitations.gm)
    watcher = await AgonClient.connect(second.ws_url, follow=[Follow(contest, created.invitations.spectator)])
    acked: dict[str, int] = {}  # command id -> version

    async def play(count: int) -> None:
        """GM adjustments, each retried with its own id while the store is unavailable, as a client would."""
        for _ in range(count):
            id = uuid.uuid4().hex
            async with asyncio.timeout(30):
                while id not in acked:
                    try:
                        ack = await gm.command(contest, x.Adjust(contestant="aria", delta=1, reason="moving"), id=id)
                        acked[id] = ack.version
                    except Refusal as refused:
                        assert refused.code == "store/unavailable", refused
                        await asyncio.sleep(0.05)
            await asyncio.sleep(0.01)

    ports = [node.port for node in moving_cluster.nodes]
    source = await owner_of(ports, f"agon:{{{contest}}}:events")
    target = next(master for master in await masters(ports) if master != source)
    playing = asyncio.create_task(play(40))
    await asyncio.sleep(0.2)
    assert await migrate_slot(ports, f"agon:{{{contest}}}:events", source, target) >= 2
    await playing
    await play(10)  # after the move, on the new owner

    head = max(acked.values())
    for client in (gm, watcher):
        mirror = await client.wait_version(contest, head)
        assert ap(mirror.doc or {})["aria"] == 15 + 50
    log = tmp_path / "moved.jsonl"
    assert agon("export", contest, "--store", url, "-o", str(log), cwd=tmp_path).returncode == 0
    envelopes = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["version"] for e in envelopes] == list(range(1, head + 1))
    ends = [(e["command_id"], e["version"]) for e in envelopes if e["batch_end"]]
    assert len({id for id, _ in ends}) == len(ends)  # no command twice
    assert {id: version for id, version in ends if id in acked} == acked  # each acknowledged one where acked
    verified = agon("verify", str(log), cwd=tmp_path)
    assert verified.returncode == 0 and "agon verify: ok" in verified.stdout, verified.stderr
    for client in (gm, watcher):
        await client.close()
