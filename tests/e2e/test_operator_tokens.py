"""A community site mints seat tokens itself (a standard JWT, here with PyJWT) and its players join a real
server's contest with them through the ordinary client; a re-issued invitation revokes them too. The
``agon1.`` links Agon 0.1 handed out keep working across the upgrade."""

from __future__ import annotations

import time

import jwt
import pytest

from clients.python.client import AgonClient, Refusal
from clients.python.join import join
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import SECRET, ServerFactory
from tests.net.duel import duel
from tests.net.test_tokens import legacy


def minted(contest: str, seat: str, role: str = "player", gen: int = 0) -> str:
    """What the operator's site does: the server's secret, Agon's claims, an expiry."""
    claims = {"contest": contest, "role": role, "seat": seat, "exp": int(time.time()) + 3600, "gen": gen}
    return jwt.encode({**claims, "iss": "community.example", "iat": int(time.time())}, SECRET, algorithm="HS256")


async def test_players_join_and_play_with_tokens_the_operators_site_minted(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest = created.contest
    await gm.follow(contest, created.invitations.gm)

    table = await join(f"{server.http_url}/#{minted(contest, 'ann')}")
    assert table.contest == contest
    ack = await table.client.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
    assert (await gm.wait_version(contest, ack.version)).version == ack.version
    watcher = await AgonClient.connect(
        server.ws_url, follow=[Follow(contest, minted(contest, "~spectator", role="spectator"))]
    )
    assert (await watcher.wait_version(contest, ack.version)).in_sync

    with pytest.raises(Refusal) as no_seat:
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, minted(contest, "zed"))])
    assert no_seat.value.code == "auth/bad_token"

    # The GM re-issues bob's invitation: bob's minted token of the old generation is revoked, the new one works.
    await gm.invite(contest, "bob")
    with pytest.raises(Refusal) as revoked:
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, minted(contest, "bob", gen=0))])
    assert revoked.value.code == "auth/revoked"
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, minted(contest, "bob", gen=1))])
    for client in (gm, table.client, watcher, bob):
        await client.close()


def issued_by_agon_0_1(contest: str, seat: str, role: str = "player", gen: int = 0) -> str:
    """An ``agon1.`` invitation as Agon 0.1 handed it out, before an upgrade to JWTs."""
    claims: dict[str, object] = {"contest": contest, "exp": int(time.time()) + 3600, "role": role, "seat": seat}
    if gen:
        claims["gen"] = gen
    return legacy(SECRET.encode(), claims)


async def test_a_contest_running_across_the_upgrade_keeps_its_agon1_links(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest = created.contest
    assert created.invitations.gm.startswith("eyJ")  # what this version hands out: JWTs
    await gm.follow(contest, issued_by_agon_0_1(contest, "gm", role="gm"))

    table = await join(f"{server.http_url}/#t={issued_by_agon_0_1(contest, 'ann')}")
    assert table.contest == contest
    ack = await table.client.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
    assert (await gm.wait_version(contest, ack.version)).version == ack.version

    await gm.invite(contest, "bob")  # re-issued: bob's link of before the upgrade is revoked
    with pytest.raises(Refusal) as revoked:
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, issued_by_agon_0_1(contest, "bob"))])
    assert revoked.value.code == "auth/revoked"
    forged = issued_by_agon_0_1(contest, "bob", gen=1)[:-4] + "AAAA"
    with pytest.raises(Refusal) as refused:
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, forged)])
    assert refused.value.code == "auth/bad_token"
    for client in (gm, table.client):
        await client.close()
