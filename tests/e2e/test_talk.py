"""Table talk across two `agon serve` processes sharing one Redis: a line said through one reaches the followers
of the other, a whisper only its two seats on either, and two lines said at once through both are numbered
one after the other."""

from __future__ import annotations

import asyncio
import uuid

import msgspec

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.messages import Follow
from tests.e2e.conftest import ServerFactory
from tests.net.duel import duel


async def test_talk_said_through_one_process_reaches_followers_of_the_other(
    agon_server: ServerFactory, redis_url: str
) -> None:
    first, second = agon_server(store=redis_url), agon_server(store=redis_url)
    gm = await AgonClient.connect(first.ws_url)
    request = msgspec.structs.replace(
        duel(contest=f"talk-{uuid.uuid4().hex[:8]}"),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"], name="Ann"), Seat("bob", "player", ["orc"])],
    )
    created = await gm.create(request)
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    ann = await AgonClient.connect(second.ws_url, follow=[Follow(contest, tokens.seats["ann"])], record_frames=True)
    bob = await AgonClient.connect(second.ws_url, follow=[Follow(contest, tokens.seats["bob"])], record_frames=True)
    bob_here = await AgonClient.connect(first.ws_url, follow=[Follow(contest, tokens.seats["bob"])], record_frames=True)
    try:
        table = await gm.say(contest, "/roll 2d6 the bridge sways")
        for client in (ann, bob, bob_here):
            assert await client.next_line(contest, after=0, timeout=5) == table
        whisper = await ann.say(contest, "Aria cuts the rope (a secret)", to="gm")
        assert await gm.next_line(contest, after=table.n, timeout=5) == whisper
        both = await asyncio.gather(gm.say(contest, "first process"), bob.say(contest, "second process"))
        assert sorted(line.n for line in both) == [3, 4]
        for client in (ann, bob, bob_here, gm):
            await client.next_line(contest, after=3, timeout=5)
        for client in (bob, bob_here):
            await client.ping()
            assert [line.n for line in client.talk(contest)] == [1, 3, 4]
            assert not [frame for frame in client.frames if "a secret" in frame]
        assert "a secret" not in first.output() + second.output()
    finally:
        for client in (gm, ann, bob, bob_here):
            await client.close()
