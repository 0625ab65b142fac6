"""A GM's AP adjustment reaches every viewer as the patch the extended ruleset writes for it (no diff of the
views): over real sockets, each viewer's copy stays in step with the view hash it is sent (no fresh view asked
for) and ends as the view a newcomer on its seat is welcomed with, through adjustments that add the chart's
newest point, change it, drop it, and one that takes a contestant out (left to the diff)."""

from __future__ import annotations

import json

from clients.python.client import AgonClient
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.net.conftest import Start
from tests.net.test_server import open_duel


async def test_every_viewer_follows_a_run_of_adjustments_without_a_fresh_view(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    contest, invitations = created.contest, created.invitations
    tokens = {"ann": invitations.seats["ann"], "bob": invitations.seats["bob"], "spectator": invitations.spectator}
    viewers = {who: await AgonClient.connect(server.ws_url, follow=[Follow(contest, t)]) for who, t in tokens.items()}
    ops: list[tuple[str, str]] = []
    for contestant, delta in [("orc", -2), ("aria", 3), ("orc", 2), ("aria", -3), ("orc", -12), ("orc", 5)]:
        ack = await gm.command(contest, x.Adjust(contestant=contestant, delta=delta, reason="a wound"))
        for viewer in viewers.values():
            await viewer.wait_version(contest, ack.version)
    for frame in gm.frames:
        message = json.loads(frame)
        if message["type"] == "patch":
            ops += [(op["op"], op["path"]) for op in message["ops"]]
    # the chart's newest point was added, changed and dropped again by the ruleset's own patches
    assert {
        ("add", "/rules/chart/ap/orc/-"),
        ("replace", "/rules/chart/ap/aria/1"),
        ("remove", "/rules/chart/ap/orc/1"),
    } <= set(ops)
    for who, viewer in [*viewers.items(), ("gm", gm)]:
        mirror = viewer.mirrors[contest]
        assert mirror.desyncs == 0, who
        token = invitations.gm if who == "gm" else tokens[who]
        newcomer = await AgonClient.connect(server.ws_url, follow=[Follow(contest, token)])
        assert newcomer.mirrors[contest].doc == mirror.doc, who
        await newcomer.close()
    for client in [gm, *viewers.values()]:
        await client.close()


async def test_a_viewer_back_from_a_dropped_link_resumes_through_the_written_patches_it_missed(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    contest = created.contest
    spectator = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.spectator)])
    first = await gm.command(contest, x.Adjust(contestant="orc", delta=-2, reason="a wound"))
    await spectator.wait_version(contest, first.version)
    spectator.abort()
    await gm.command(contest, x.Adjust(contestant="aria", delta=3, reason="a rally"))  # the point moves
    last = await gm.command(contest, x.Adjust(contestant="orc", delta=2, reason="a bandage"))
    await spectator.reconnect()
    mirror = await spectator.wait_version(contest, last.version)
    assert mirror.welcomes[-1].view is None  # resumed from the server's memory: one patch of what it missed
    assert mirror.desyncs == 0
    newcomer = await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.spectator)])
    assert newcomer.mirrors[contest].doc == mirror.doc
    for client in (gm, spectator, newcomer):
        await client.close()
