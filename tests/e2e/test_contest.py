"""A whole contest over real sockets against a real `agon serve`: a GM, two players and a spectator.

Physical dice make it deterministic. Along the way a spectator tries every command, the GM undoes an
exchange, and a player's socket is killed and resumes with no patch missed or repeated.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from typing import Any

from clients.python.client import AgonClient, Refusal
from clients.python.mirror import ContestMirror
from protocol.events import Conclude, Declare, Undo
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.net.duel import ARIA_WINS, ORC_FAILS, ap, duel, every_command


def assert_chain(mirror: ContestMirror) -> None:
    """Every patch starts where the previous one ended: no gap, no repeat."""
    first = mirror.welcomes[0]
    assert first.view is not None
    at = first.version
    for start, end in mirror.patches:
        assert start == at, f"{mirror.seat}: patch {start}->{end} after version {at}: {mirror.patches}"
        assert end > start
        at = end
    assert at == mirror.version
    assert mirror.desyncs == 0


async def everyone_at(clients: Sequence[AgonClient], contest: str, version: int) -> list[ContestMirror]:
    return [await client.wait_version(contest, version) for client in clients]


def snapshot(mirror: ContestMirror) -> dict[str, Any]:
    """The parts of a view that undo restores (version and the undo/redo flags move on)."""
    assert mirror.doc is not None
    return copy.deepcopy({"rules": mirror.doc["rules"], "seal": mirror.doc["seal"]})


async def test_a_contest_is_played_to_its_outcome_over_real_sockets(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel(dice="physical"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])
    everyone = [gm, ann, bob, watcher]
    start = created.version
    for client, seat, role in [(gm, "gm", "gm"), (ann, "ann", "player"), (bob, "bob", "player")]:
        mirror = client.mirrors[contest]
        assert (mirror.seat, mirror.role, mirror.version) == (seat, role, start)
    assert ann.mirrors[contest].contestants == ["aria"]
    assert watcher.mirrors[contest].role == "spectator"

    # A spectator may try anything: every command is forbidden, and nothing changes.
    for command in every_command():
        try:
            await watcher.command(contest, command)
        except Refusal as refusal:
            assert refusal.code == "auth/forbidden", (command, refusal)
        else:
            raise AssertionError(f"a spectator's {type(command).__name__} was accepted")
    await gm.ping()
    assert gm.mirrors[contest].version == start

    # Round 1: sealed intents, then Aria's exchange.
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    revealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    before_roll = [snapshot(m) for m in await everyone_at(everyone, contest, revealed.version)]
    for mirror in [c.mirrors[contest] for c in everyone]:
        assert mirror.rules["phase"] == "ready"
        assert mirror.rules["intents"]["aria"]["action"] == "lunge"

    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    for mirror in await everyone_at(everyone, contest, rolled.version):
        assert mirror.rules["last"]["result"] == "orc loses 8 AP"
    assert ap(gm.mirrors[contest].doc or {}) == {"aria": 15, "orc": 4}
    assert ap(watcher.mirrors[contest].doc or {})["orc"] == 4  # AP is public once it has changed

    # The GM undoes the exchange: every view returns to where it was before the roll.
    undone = await gm.command(contest, Undo())
    for mirror, earlier in zip(await everyone_at(everyone, contest, undone.version), before_roll, strict=True):
        assert snapshot(mirror) == earlier, mirror.seat
        assert mirror.doc is not None and mirror.doc["can_redo"] is True

    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    await everyone_at(everyone, contest, rolled.version)

    # Ann's socket dies; the contest goes on without her for a few batches.
    seen = ann.mirrors[contest].version
    ann.abort()
    missed = [
        await gm.command(contest, x.Roll(faces=ORC_FAILS)),  # the Orc's exchange; round 2 begins
        await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="parry", bid=1))),
    ]
    await ann.reconnect()
    resumed = ann.mirrors[contest]
    assert resumed.welcomes[-1].view is None and resumed.welcomes[-1].version == seen  # a resume, not a fresh view
    await ann.wait_version(contest, missed[-1].version)
    assert [p for p in resumed.patches if p[0] >= seen] == [(seen, missed[-1].version)]
    assert ap(resumed.doc or {}) == {"aria": 15, "orc": 1}

    # Round 2 decides it.
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="finish it", bid=8)))
    decided = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    for mirror in await everyone_at(everyone, contest, decided.version):
        assert mirror.rules["phase"] == "decided"
        assert mirror.rules["outcome"]["winner"] == "aria"
        assert mirror.rules["outcome"]["loser"] == "orc"
    concluded = await gm.command(contest, Conclude())
    mirrors = await everyone_at(everyone, contest, concluded.version)
    for mirror in mirrors:
        assert mirror.doc is not None and mirror.doc["concluded"] is True
        assert_chain(mirror)  # Ann's too: her patches run on across the reconnection
        assert mirror.notices[-1].kind == "contest.concluded"

    # Patched views are exactly the views a fresh connection gets.
    tokens = {"gm": invitations.gm, "ann": invitations.seats["ann"], "bob": invitations.seats["bob"]}
    tokens["watcher"] = invitations.spectator
    for (name, token), mirror in zip(tokens.items(), mirrors, strict=True):
        fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, token)])
        assert fresh.mirrors[contest].doc == mirror.doc, name
        await fresh.close()

    await asyncio.gather(*(client.close() for client in everyone))


async def test_the_owner_lists_its_contests(agon_server: ServerFactory) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    first = await gm.create(duel(title="first"))
    second = await gm.create(duel(title="second"))
    other = await AgonClient.connect(server.ws_url)
    await other.create(duel(title="someone else's"))
    listed = await gm.contests()
    assert sorted((c.contest, c.title) for c in listed) == sorted(
        [(first.contest, "first"), (second.contest, "second")]
    )
    assert all(c.ruleset == "extended" and c.version == first.version for c in listed)
    # The owner token works on a new connection too.
    again = await AgonClient.connect(server.ws_url, owner=gm.owner)
    assert {c.contest for c in await again.contests()} == {first.contest, second.contest}
    for client in (gm, other, again):
        await client.close()
