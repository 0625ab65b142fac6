"""The line of an undo or a rewind names the versions it undid, and a redo's the versions it brought back, on
every viewer's page (live in the patch, and in the story a newcomer is told), so any page can strike out the
lines of undone events as the GM's timeline does."""

from __future__ import annotations

import json
from typing import Any

from clients.python.client import AgonClient
from protocol.events import Declare, Redo, Rewind, Undo
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.net.conftest import Start
from tests.net.duel import ARIA_WINS, duel


def lines(client: AgonClient) -> list[dict[str, Any]]:
    """Every notice line the client received, from patches and notice messages, in order."""
    out: list[dict[str, Any]] = []
    for message in map(json.loads, client.frames):
        if message["type"] == "patch":
            out += message.get("notices", [])
        elif message["type"] == "notice":
            out.append(message)
    return out


def struck(received: list[dict[str, Any]]) -> set[int]:
    """The versions a page strikes out, reading the lines as docs/protocol.md says."""
    undone: set[int] = set()
    for line in sorted(received, key=lambda n: n["version"]):
        undone |= set(line.get("undone", []))
        undone -= set(line.get("redone", []))
    return undone


async def test_undo_rewind_and_redo_tell_every_viewer_which_lines_are_undone(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(duel())
    contest = created.contest
    await gm.follow(contest, created.invitations.gm)
    watcher = await AgonClient.connect(
        server.ws_url, follow=[Follow(contest, created.invitations.spectator)], record_frames=True
    )
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.seats["bob"])])
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    revealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    adjusted = await gm.command(contest, x.Adjust(contestant="orc", delta=-1, reason="a slip"))
    undo = await gm.command(contest, Undo())
    await watcher.wait_version(contest, undo.version)
    assert adjusted.version in struck(lines(watcher)) and rolled.version not in struck(lines(watcher))
    redo = await gm.command(contest, Redo())
    await watcher.wait_version(contest, redo.version)
    assert struck(lines(watcher)) == set()
    rewind = await gm.command(contest, Rewind(to_version=revealed.version))
    await watcher.wait_version(contest, rewind.version)
    assert {rolled.version, adjusted.version} <= struck(lines(watcher))
    # a newcomer is told the same story, with the same marks
    late = await AgonClient.connect(
        server.ws_url, follow=[Follow(contest, created.invitations.spectator)], record_frames=True
    )
    await late.wait_version(contest, rewind.version)
    assert struck(lines(late)) == struck(lines(watcher))
    for line in lines(late):
        assert ("undone" in line) == (line["kind"] in ("control.undone", "control.rewound"))
    for client in (gm, ann, bob, watcher, late):
        await client.close()
