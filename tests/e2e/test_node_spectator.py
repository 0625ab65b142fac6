"""The Node.js spectator (clients/node, written from docs/protocol.md) against a real `agon serve`: it follows a
contest played to its conclusion, checks every view_hash, and ends with exactly the view a Python spectator
holds and the public state the GM sees."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from clients.python import AgonClient
from protocol.events import Conclude, Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.engine.table import duel

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"


async def test_the_node_spectator_ends_with_the_state_the_gm_sees(agon_server: ServerFactory) -> None:
    node = shutil.which("node")
    if node is None or not (NODE_CLIENT / "node_modules" / "fast-json-patch").is_dir():
        pytest.fail("node and clients/node/node_modules are needed: tests/run installs them", pytrace=False)
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])

    spectator = await asyncio.create_subprocess_exec(
        node,
        "--experimental-websocket",
        str(NODE_CLIENT / "spectator.mjs"),
        f"{server.http_url}/#t={invitations.spectator}",
        "--until-concluded",
        "--final",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert spectator.stdout is not None
        welcome = await asyncio.wait_for(spectator.stdout.readline(), 20)
        assert welcome.decode().startswith("welcome as spectator · v2"), welcome

        await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)))
        await gm.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
        # Critical vs Success: the orc loses 5, and no hero point could change that; Ann lets it stand
        await gm.command(contest, x.Roll(faces=[1, 10]))
        await ann.command(contest, x.PassHeroPoint(contestant="aria"))
        await gm.command(contest, x.Roll(faces=[15, 3]))
        await ann.command(contest, x.PassHeroPoint(contestant="aria"))
        await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="finish it", bid=15)))
        await gm.command(contest, Declare(participant="orc", payload=x.Intent(action="parry", bid=3)))
        await gm.command(contest, x.Roll(faces=[2, 16]))
        await ann.command(contest, x.PassHeroPoint(contestant="aria"))
        concluded = await gm.command(contest, Conclude())

        out, err = await asyncio.wait_for(spectator.communicate(), 30)
    finally:
        if spectator.returncode is None:
            spectator.kill()
            await spectator.wait()
    assert spectator.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert not [line for line in lines if "out of sync" in line], lines
    assert any("aria has declared (sealed" in line for line in lines)  # notices, sealed for a spectator
    assert not any("lunge" in line and "revealed" not in line for line in lines)
    final = json.loads(next(line for line in lines if line.startswith("FINAL ")).removeprefix("FINAL "))

    theirs = (await watcher.wait_version(contest, concluded.version)).doc
    assert final == theirs  # byte for byte the view a spectator holds
    gm_view = (await gm.wait_version(contest, concluded.version)).doc
    assert gm_view is not None
    for key in ("version", "concluded", "seed", "seed_hash"):
        assert final[key] == gm_view[key]
    assert final["rules"]["outcome"] == gm_view["rules"]["outcome"] and final["rules"]["outcome"]["winner"] == "aria"
    assert [c["ap"] for c in final["rules"]["contestants"]] == [c["ap"] for c in gm_view["rules"]["contestants"]]
    for client in (gm, ann, watcher):
        await client.close()
