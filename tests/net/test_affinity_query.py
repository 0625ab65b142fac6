"""``/ws?contest=ID`` (contest affinity through a proxy) is served like ``/ws``: a table plays through it, and the
query grants nothing — a contest named there but not in a token is never shown, and a garbage, overlong or
repeated query is harmless."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect

from clients.python import AgonClient
from clients.python.errors import Refusal
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.net.conftest import Start
from tests.net.duel import ARIA_WINS, duel


async def test_a_table_plays_through_ws_with_its_contest_in_the_query(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    named = f"{server.ws_url}?contest={contest}"
    ann = await AgonClient.connect(named, follow=[Follow(contest, tokens.seats["ann"])])
    bob = await AgonClient.connect(named, follow=[Follow(contest, tokens.seats["bob"])])
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    for client in (gm, ann, bob):
        mirror = await client.wait_version(contest, rolled.version)
        assert mirror.in_sync and mirror.rules["last"]["result"] == "orc loses 8 AP"
    # the query names a contest; the token opens another one: the token decides
    other = await gm.create(duel(contest="other"))
    elsewhere = await AgonClient.connect(
        f"{server.ws_url}?contest={contest}", follow=[Follow("other", other.invitations.spectator)], contest="other"
    )
    assert list(elsewhere.mirrors) == ["other"]
    for client in (gm, ann, bob, elsewhere):
        await client.close()


async def test_the_query_grants_nothing(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    stranger = await AgonClient.connect(f"{server.ws_url}?contest={created.contest}")
    with pytest.raises(Refusal) as refused:
        await stranger.command(created.contest, x.Roll(faces=ARIA_WINS))
    assert refused.value.code.startswith("auth/")
    assert created.contest not in stranger.mirrors
    for client in (gm, stranger):
        await client.close()


@pytest.mark.parametrize(
    "query",
    [
        "?contest=",
        "?contest=" + "x" * 4000,
        "?contest=%ff%00%2F..%2Fetc&contest=a&contest=b",
        "?%%%&&==;;",
        "?token=eyJ.not.a.token",
        "?contest=ünïcødé ☃",
    ],
    ids=["empty", "overlong", "garbage", "not-a-query", "token", "unicode"],
)
async def test_any_query_on_ws_is_harmless(start: Start, query: str) -> None:
    server = await start()
    async with connect(server.ws_url + query.replace(" ", "%20").replace("☃", "%E2%98%83")) as ws:
        await ws.send('{"type":"hello","client":"probe"}')
        await ws.send('{"type":"ping","nonce":7}')
        assert '"pong"' in str(await ws.recv())
    async with connect(server.ws_url) as ws:  # and the server is still serving
        await ws.send('{"type":"hello","client":"probe"}')
        await ws.send('{"type":"ping","nonce":8}')
        assert '"pong"' in str(await ws.recv())
