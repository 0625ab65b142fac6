"""What docs/protocol.md promises about frames, checked on the raw frames of a real `agon serve`: a connection
that follows nothing receives nothing unprompted (the creator included), the sender's patch comes before its
ack, a live patch carries the notices of its batch, a fresh welcome is followed by the story so far, and
patches chain without gap or repeat."""

from __future__ import annotations

import json
from typing import Any

from clients.python import AgonClient
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.engine.table import duel


def frames(client: AgonClient) -> list[dict[str, Any]]:
    return [json.loads(frame) for frame in client.frames]


async def test_frames_arrive_in_the_documented_order(agon_server: ServerFactory) -> None:
    server = agon_server()
    creator = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await creator.create(duel())
    contest, invitations = created.contest, created.invitations
    idle = await AgonClient.connect(server.ws_url, record_frames=True)  # hello with nothing to follow
    gm = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.gm)], record_frames=True)
    ann = await AgonClient.connect(
        server.ws_url, follow=[Follow(contest, invitations.seats["ann"])], record_frames=True
    )

    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)), id="a1")
    revealed = await gm.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)), id="g1")
    await gm.command(contest, x.Roll(faces=[1, 10]), id="g2")
    await ann.wait_version(contest, revealed.version + 1)
    await creator.ping()
    await idle.ping()

    # a hello with nothing to follow is answered by nothing: the client pings to know the server took it
    assert [f["type"] for f in frames(creator)] == ["pong", "created", "pong"]  # the creator does not follow
    assert [f["type"] for f in frames(idle)] == ["pong", "pong"]

    for client, own in ((gm, {"g1", "g2"}), (ann, {"a1"})):
        seen = frames(client)
        assert seen[0]["type"] == "welcome"
        version = seen[0]["version"]
        for i, frame in enumerate(seen[1:], start=1):
            match frame["type"]:
                case "patch":
                    assert frame["from"] == version, "patches chain: no gap, no repeat"
                    # a live patch tells its own batch: a line per event, in order, each one of the batch
                    told = [line["version"] for line in frame.get("notices", [])]
                    assert told == sorted(told) and all(frame["from"] < v <= frame["to"] for v in told)
                    assert told, "every batch here holds an event each seat may see"
                    version = frame["to"]
                case "notice":
                    # the story so far: right after a fresh welcome, the notices up to its version
                    assert seen[i - 1]["type"] in ("welcome", "notice")
                    assert frame["version"] <= seen[0]["version"]
                case "ack":
                    assert frame["id"] in own and frame["version"] <= version  # its patch came first
        assert {f["id"] for f in seen if f["type"] == "ack"} == own

    reveal = next(f for f in frames(ann) if f["type"] == "patch" and f["to"] == revealed.version)
    assert reveal["to"] - reveal["from"] == 2  # the orc's declaration and the reveal: one batch, one patch
    assert [n["kind"] for n in reveal["notices"]] == ["seal.declared", "seal.revealed"]
    for client in (creator, idle, gm, ann):
        await client.close()
