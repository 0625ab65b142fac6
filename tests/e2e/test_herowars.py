"""A Hero Wars contest played through `agon serve` over real sockets: sealed bids, the winner × loser
tables, a hero point passed, a tie the GM settles, the optional cap, and the outcome every viewer sees."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Sequence
from pathlib import Path

from clients.python.client import AgonClient
from clients.python.mirror import ContestMirror
from protocol.events import Conclude, Declare
from protocol.messages import Follow
from protocol.rulesets import herowars as h
from tests.e2e.conftest import AGON, ServerFactory
from tests.net.duel import ap, ford


async def everyone_at(clients: Sequence[AgonClient], contest: str, version: int) -> list[ContestMirror]:
    return [await client.wait_version(contest, version) for client in clients]


async def test_a_herowars_contest_is_played_to_its_outcome(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(ford(cap_3x=True))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])
    everyone = [gm, ann, bob, watcher]

    # Round 1: Erik's bid is sealed until Jonas has declared too.
    sealed = await ann.command(contest, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    for mirror in await everyone_at([bob, watcher], contest, sealed.version):
        assert [d["payload"] for d in mirror.doc["seal"]["declared"]] == [None]  # type: ignore[index]
        assert "charge" not in str(mirror.doc) and all("charge" not in n.text for n in mirror.notices)
    revealed = await bob.command(contest, Declare(participant="jonas", payload=h.Intent(action="hold", bid=3)))
    for mirror in await everyone_at(everyone, contest, revealed.version):
        assert mirror.rules["phase"] == "ready" and mirror.rules["intents"]["erik"]["bid"] == 10

    # Erik's exchange: Success (6) against a higher Success (12). Ann keeps her hero point.
    rolled = await gm.command(contest, h.Roll(faces=[6, 12]))
    assert (await ann.wait_version(contest, rolled.version)).rules["exchange"]["hero_points_pending"] == ["erik"]
    await ann.command(contest, h.PassHeroPoint(contestant="erik"))
    applied = await bob.command(contest, h.PassHeroPoint(contestant="jonas"))  # Bob lets Jonas's result stand
    for mirror in await everyone_at(everyone, contest, applied.version):
        assert mirror.rules["last"]["lost"] == {"jonas": 10}  # 10 doubled by the winner, halved by the loser
    assert ap(watcher.mirrors[contest].doc or {}) == {"erik": None, "jonas": 5}  # Erik's AP has not moved
    assert ap(gm.mirrors[contest].doc or {}) == {"erik": 15, "jonas": 5}

    # Jonas's exchange: both Critical, a tie the GM settles from the stated intents.
    await gm.command(contest, h.Roll(faces=[1, 1]))
    await ann.command(contest, h.PassHeroPoint(contestant="erik"))  # a Critical: no hero point offered
    tied = await bob.command(contest, h.PassHeroPoint(contestant="jonas"))
    for mirror in await everyone_at(everyone, contest, tied.version):
        assert mirror.rules["phase"] == "tied"
    settled = await gm.command(contest, h.SettleTie(winner="erik", loss=3, reason="Erik holds the ford"))
    for mirror in await everyone_at(everyone, contest, settled.version):
        assert mirror.rules["round"] == 2 and mirror.rules["phase"] == "declaring"
        assert mirror.notices[-2].text.endswith("Erik holds the ford")
    assert ap(gm.mirrors[contest].doc or {}) == {"erik": 15, "jonas": 2}

    # Round 2: Erik fumbles; 10 doubled by Jonas's Success, doubled again by the Fumble is 40, capped at 30.
    await ann.command(contest, Declare(participant="erik", payload=h.Intent(action="leap", bid=10)))
    await bob.command(contest, Declare(participant="jonas", payload=h.Intent(action="brace")))
    await gm.command(contest, h.Roll(faces=[20, 8]))
    await ann.command(contest, h.PassHeroPoint(contestant="erik"))
    decided = await bob.command(contest, h.PassHeroPoint(contestant="jonas"))
    for mirror in await everyone_at(everyone, contest, decided.version):
        assert mirror.rules["last"]["lost"] == {"erik": 30} and mirror.rules["last"]["capped"] is True
        assert mirror.rules["phase"] == "decided"
        assert mirror.rules["outcome"] == {
            "type": "herowars.contest_decided",
            "winner": "jonas",
            "defeated": [{"contestant": "erik", "ap": -15, "level": "Minor", "consequence": "Impaired"}],
            "benefit": "Pumped",
        }
    concluded = await gm.command(contest, Conclude())
    mirrors = await everyone_at(everyone, contest, concluded.version)

    # Patched views are exactly the views a fresh connection gets.
    tokens = [invitations.gm, invitations.seats["ann"], invitations.seats["bob"], invitations.spectator]
    for token, mirror in zip(tokens, mirrors, strict=True):
        fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, token)])
        assert fresh.mirrors[contest].doc == mirror.doc
        await fresh.close()
    await asyncio.gather(*(client.close() for client in everyone))

    # The exported log verifies (hash chain, commitments, dice, fold), and a replay as a spectator at the
    # version where only Erik had sealed his bid does not show it.
    log = tmp_path / "ford.jsonl"
    exported = subprocess.run([AGON, "export", contest, "--store", server.store, "-o", str(log)], capture_output=True)
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run([AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    replayed = subprocess.run(
        [AGON, "replay", str(log), "--as", "spectator", "--at", str(sealed.version)], capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stderr
    assert "charge" not in replayed.stdout and "seal.declared [sealed]" in replayed.stdout
