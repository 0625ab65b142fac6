"""The Node.js spectator (clients/node, written from docs/protocol.md) against a real `agon serve`: it follows a
contest played to its conclusion, checks every view_hash, and ends with exactly the view a Python spectator
holds and the public state the GM sees; contestants named beyond U+FFFF do not put it out of sync."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clients.python import AgonClient
from protocol.common import Seat
from protocol.events import Conclude, CreateContest, Declare
from protocol.messages import Follow, Invitations
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory, ServerProcess
from tests.engine.table import duel

NODE_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "node"


@contextlib.asynccontextmanager
async def node_spectator(link: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``spectator.mjs LINK --until-concluded --final``, its output piped; killed if it is still running."""
    node = shutil.which("node")
    if node is None or not (NODE_CLIENT / "node_modules" / "fast-json-patch").is_dir():
        pytest.fail("node and clients/node/node_modules are needed: tests/run installs them", pytrace=False)
    spectator = await asyncio.create_subprocess_exec(
        node,
        "--experimental-websocket",
        str(NODE_CLIENT / "spectator.mjs"),
        link,
        "--until-concluded",
        "--final",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield spectator
    finally:
        if spectator.returncode is None:
            spectator.kill()
            await spectator.wait()


async def first_line(spectator: asyncio.subprocess.Process) -> str:
    assert spectator.stdout is not None
    return (await asyncio.wait_for(spectator.stdout.readline(), 20)).decode()


async def in_sync_to_the_end(spectator: asyncio.subprocess.Process) -> tuple[list[str], dict[str, Any]]:
    """Its lines once it ends by itself (never out of sync), and the final view it printed."""
    out, err = await asyncio.wait_for(spectator.communicate(), 30)
    assert spectator.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    assert not [line for line in lines if "out of sync" in line], lines
    final = json.loads(next(line for line in lines if line.startswith("FINAL ")).removeprefix("FINAL "))
    return lines, final


async def seated(server: ServerProcess, request: CreateContest) -> tuple[str, Invitations, list[AgonClient]]:
    """The contest opened, followed by its GM, by Ann and by a Python spectator (in that order)."""
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(request)
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])
    return contest, invitations, [gm, ann, watcher]


async def test_the_node_spectator_ends_with_the_state_the_gm_sees(agon_server: ServerFactory) -> None:
    server = agon_server()
    contest, invitations, (gm, ann, watcher) = await seated(server, duel())
    async with node_spectator(f"{server.http_url}/#t={invitations.spectator}") as spectator:
        welcome = await first_line(spectator)
        assert welcome.startswith("welcome as spectator · v2"), welcome

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
        lines, final = await in_sync_to_the_end(spectator)
    assert any("Aria has declared (sealed" in line for line in lines)  # notices, sealed for a spectator
    assert not any("lunge" in line and "revealed" not in line for line in lines)
    # whose move, each time it changes: the seal, the GM's typed roll, Ann's answer, and nothing once concluded
    for waiting in (
        "waiting for Aria's player and the GM to seal an intent",
        "waiting for the GM to seal an intent",
        "waiting for the GM to roll exchange 1",
        "waiting for Aria's player to let the roll stand or spend a hero point",
        "concluded: nothing more to wait for",
    ):
        assert f"  {waiting}" in lines, (waiting, lines)
    assert "at the table: the GM, Aria's player · 2 spectators" in lines  # who is here: it and a Python one

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


async def test_contestants_named_beyond_u_ffff_keep_the_node_spectator_in_sync(agon_server: ServerFactory) -> None:
    # "ａ" (U+FF41) sorts before "𝔬" (U+1D52C) by code point, as the server sorts the keys of chart.ap and
    # intents; by UTF-16 code units (JavaScript's default sort) it would come after
    server = agon_server()
    contest, invitations, (gm, ann, watcher) = await seated(
        server,
        CreateContest(
            ruleset="extended",
            title="Odd names",
            dice="physical",
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["ａ"])],
            setup=x.ExtendedSetup(
                prize="the bridge",
                contestants=[
                    x.Contestant(id="ａ", name="A", ability="Sword", rating="15", hero_points=1),
                    x.Contestant(id="𝔬", name="O", ability="Axe", rating="12"),
                ],
            ),
        ),
    )
    async with node_spectator(f"{server.http_url}/#t={invitations.spectator}") as spectator:
        welcome = await first_line(spectator)
        assert welcome.startswith("welcome as spectator"), welcome
        await ann.command(contest, Declare(participant="ａ", payload=x.Intent(action="lunge", bid=5)))
        await gm.command(contest, Declare(participant="𝔬", payload=x.Intent(action="swing", bid=4)))
        await gm.command(contest, x.Roll(faces=[1, 10]))
        await ann.command(contest, x.PassHeroPoint(contestant="ａ"))
        concluded = await gm.command(contest, Conclude())
        _, final = await in_sync_to_the_end(spectator)
    theirs = (await watcher.wait_version(contest, concluded.version)).doc
    assert final == theirs and list(final["rules"]["chart"]["ap"]) == ["ａ", "𝔬"]
    assert watcher.mirrors[contest].desyncs == 0
    for client in (gm, ann, watcher):
        await client.close()
