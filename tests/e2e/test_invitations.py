"""Invitations over real sockets: a link (token) alone joins its contest; a re-issued link revokes the old
one in every process sharing the store; an auditor reads everything and may do nothing; only a GM or an
auditor reads the whole timeline."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from websockets.asyncio.client import connect

from clients.python.client import AgonClient, Refusal
from protocol.events import Declare, Undo
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.net.duel import ARIA_WINS, duel


async def refused(work: object) -> str:
    try:
        await work  # type: ignore[misc]
    except Refusal as refusal:
        return refusal.code
    raise AssertionError("accepted")


async def test_a_token_alone_follows_its_contest(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "follow": [{"token": created.invitations.seats["ann"]}]}))
        welcome = json.loads(await ws.recv())
    assert (welcome["type"], welcome["contest"], welcome["seat"], welcome["role"]) == (
        "welcome",
        created.contest,
        "ann",
        "player",
    )
    assert welcome.get("seats") is None  # the list of seats is for the GM and auditors
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "follow": [{"token": created.invitations.gm}]}))
        welcome = json.loads(await ws.recv())
    assert [s["id"] for s in welcome["seats"]] == ["gm", "ann", "bob"]


async def test_a_reissued_link_is_revoked_in_every_process(agon_server: ServerFactory, redis_url: str) -> None:
    first, second = agon_server(store=redis_url), agon_server(store=redis_url)
    gm = await AgonClient.connect(first.ws_url)
    created = await gm.create(duel(contest=f"inv-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    old = invitations.seats["bob"]
    bob = await AgonClient.connect(second.ws_url, follow=[Follow(contest, old)], record_frames=True)
    watcher = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invitations.spectator)])

    invited = await gm.invite(contest, "bob")
    assert invited.role == "player" and invited.token != old
    # Bob's open connection on the other process is told once, then receives nothing more of the contest
    async with asyncio.timeout(10):
        while not any(e.code == "auth/revoked" for e in bob.errors):
            await asyncio.sleep(0.02)
    frames_then = len(bob.frames)
    assert await refused(bob.command(contest, Declare(participant="orc", payload=x.Intent()))) == "auth/revoked"
    ann = await AgonClient.connect(first.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    declared = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    await watcher.wait_version(contest, declared.version)
    assert not [f for f in bob.frames[frames_then:] if '"patch"' in f or '"notice"' in f]
    # The old link no longer opens the contest on either process; the new one does
    for server in (first, second):
        with pytest.raises(Refusal) as stale:
            await AgonClient.connect(server.ws_url, follow=[Follow(contest, old)])
        assert stale.value.code == "auth/revoked"
    new_bob = await AgonClient.connect(second.ws_url, follow=[Follow(contest, invited.token)])
    revealed = await new_bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    mirror = await new_bob.wait_version(contest, revealed.version)
    assert mirror.rules["phase"] == "ready"
    # The re-issue is in the contest's log, for everyone to see; undo does not bring the old link back
    timeline = await gm.timeline(contest)
    assert any(e.kind == "seat.reissued" and "Orc's player" in e.text for e in timeline.entries)  # Bob's seat, unnamed
    await gm.command(contest, Undo())
    with pytest.raises(Refusal) as still:
        await AgonClient.connect(first.ws_url, follow=[Follow(contest, old)])
    assert still.value.code == "auth/revoked"
    for client in (gm, bob, watcher, ann, new_bob):
        await client.close()


async def test_an_auditor_reads_everything_and_may_do_nothing(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel(dice="physical"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    declared = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="hidden plan", bid=5)))

    invited = await gm.invite(contest, "~auditor")
    assert invited.role == "auditor"
    auditor = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invited.token)])
    mirror = await auditor.wait_version(contest, declared.version)
    assert mirror.role == "auditor"
    assert mirror.doc is not None and mirror.doc["seal"]["declared"][0]["payload"]["action"] == "hidden plan"
    for command in (x.Roll(faces=ARIA_WINS), Undo(), Declare(participant="orc", payload=x.Intent())):
        assert await refused(auditor.command(contest, command)) == "auth/forbidden"
    assert await refused(auditor.invite(contest, "bob")) == "auth/forbidden"
    seen = await auditor.timeline(contest)
    assert seen.verification.ok and seen.head == declared.version + 1  # the auditor link is in the log too
    # the timeline as a player saw it: the sealed intent is a commitment only
    as_bob = await auditor.timeline(contest, viewer="bob")
    assert "hidden plan" not in json.dumps([e.text for e in as_bob.entries])
    assert any(e.sealed for e in as_bob.entries)
    assert "hidden plan" in json.dumps([e.text for e in seen.entries])

    # players and spectators get no timeline; nobody but the GM re-issues links
    assert await refused(ann.timeline(contest)) == "auth/forbidden"
    assert await refused(ann.invite(contest, "bob")) == "auth/forbidden"
    assert await refused(gm.invite(contest, "nobody")) == "contest/no_such_seat"
    assert await refused(gm.timeline(contest, viewer="nobody")) == "contest/no_such_seat"
    for client in (gm, ann, auditor):
        await client.close()
