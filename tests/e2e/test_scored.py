"""A scored sequence played to its end through a real `agon serve` with physical dice typed in by the players:
two PCs (one with a follower as secondary contestant) against an ogre, one assist, a GM undo in the middle;
then the exported log verifies and replays to exactly the views the players were patched to."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
from typing import Any

import pytest

from clients.python.client import AgonClient, Refusal
from clients.python.mirror import ContestMirror
from protocol.common import Seat
from protocol.events import Conclude, CreateContest, Declare, Undo
from protocol.messages import Follow
from protocol.rulesets import scored as s
from tests.e2e.conftest import AGON, ServerFactory


def sequence() -> CreateContest:
    return CreateContest(
        ruleset="scored",
        title="The ogre's bridge",
        dice="physical",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria", "brin"]), Seat("bob", "player", ["bors"])],
        setup=s.ScoredSetup(
            prize="the bridge",
            players_type_faces=True,
            contestants=[
                s.Contestant(id="aria", name="Aria", side="heroes", ability="Sword", rating="15"),
                s.Contestant(id="brin", name="Brin", side="heroes", rating="12", follower_of="aria", role="secondary"),
                s.Contestant(id="bors", name="Bors", side="heroes", ability="Spear", rating="14"),
                s.Contestant(id="ogre", name="Ogre", side="opposition", ability="Club", rating="13"),
            ],
        ),
    )


def rp(mirror: ContestMirror) -> dict[str, int]:
    return {c["id"]: c["rp"] for c in mirror.rules["contestants"]}


def rules_of(mirror: ContestMirror) -> dict[str, Any]:
    return copy.deepcopy(mirror.rules)


async def test_a_scored_sequence_is_played_to_its_end_and_its_export_replays(
    agon_server: ServerFactory, tmp_path: Any
) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(sequence())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])
    everyone = [gm, ann, bob, watcher]

    async def settled(version: int) -> list[ContestMirror]:
        return [await client.wait_version(contest, version) for client in everyone]

    # Round 1: the GM gives the Ogre the initiative; both tactics sealed; the Ogre gambles and wins big.
    await gm.command(contest, s.StartRound(initiative="ogre", responder="aria"))
    await gm.command(contest, Declare(participant="ogre", payload=s.Tactic(tactic="gambit", action="overhead smash")))
    sealed = await ann.command(contest, Declare(participant="aria", payload=s.Tactic(action="parry")))
    for mirror in await settled(sealed.version):
        assert mirror.rules["tactics"]["ogre"]["tactic"] == "gambit"
    await ann.command(contest, s.Roll(faces=[13, 16]))  # the Ogre's big success (2) to none: 3 + 1
    rolled = await ann.command(contest, s.KeepStoryPoints(contestant="aria"))  # Ann lets it stand
    for mirror in await settled(rolled.version):
        assert rp(mirror)["aria"] == 4  # public: everyone, the spectator too, sees the tally
        assert mirror.rules["score"]["aria"] == "behind 0–4"

    # Aria shifts 2 RP onto Brin; Bob refuses to help himself, then assists Aria.
    shifted = await ann.command(contest, s.ShiftPoints(contestant="aria", follower="brin", points=2))
    with pytest.raises(Refusal) as refused:
        await bob.command(contest, s.Assist(helper="bors", beneficiary="bors", faces=[3, 12]))
    assert refused.value.code == "rules/assist_self"
    with pytest.raises(Refusal) as refused:
        await ann.command(contest, s.ShiftPoints(contestant="aria", follower="bors", points=1))
    assert refused.value.code == "rules/not_secondary"
    rolled = await bob.command(contest, s.Assist(helper="bors", beneficiary="aria", faces=[3, 12]))
    assert rolled.version == shifted.version + 1  # the refusals stored nothing
    assisted = await bob.command(contest, s.KeepStoryPoints(contestant="bors"))
    for mirror in await settled(assisted.version):
        assert rp(mirror) == {"aria": 0, "brin": 2, "bors": 0, "ogre": 0}
        assert mirror.rules["next_assist"]["aria"] == "15"

    # Round 2: Bors gambles. The GM undoes the roll (and Bob's answer); everyone is back before the dice.
    await gm.command(contest, s.StartRound(initiative="bors", responder="ogre"))
    await bob.command(contest, Declare(participant="bors", payload=s.Tactic(tactic="gambit")))
    ready = await gm.command(contest, Declare(participant="ogre", payload=s.Tactic()))
    before_roll = [rules_of(m) for m in await settled(ready.version)]
    await bob.command(contest, s.Roll(faces=[14, 16]))
    rolled = await bob.command(contest, s.KeepStoryPoints(contestant="bors"))
    for mirror in await settled(rolled.version):
        assert rp(mirror)["ogre"] == 4
    undone = await gm.command(contest, Undo())  # back to the last rewindable point: before the dice
    for mirror, earlier in zip(await settled(undone.version), before_roll, strict=True):
        assert rules_of(mirror) == earlier, mirror.seat
    await bob.command(contest, s.Roll(faces=[5, 16]))  # degree 1: 2 + 1
    rolled = await bob.command(contest, s.KeepStoryPoints(contestant="bors"))
    for mirror in await settled(rolled.version):
        assert rp(mirror)["ogre"] == 3

    # Round 3: Aria, defensive, wins degree 2: 3 − 1 = 2 RP, and the Ogre is out at 5.
    await gm.command(contest, s.StartRound(initiative="aria", responder="ogre"))
    await ann.command(contest, Declare(participant="aria", payload=s.Tactic(tactic="defensive")))
    await gm.command(contest, Declare(participant="ogre", payload=s.Tactic()))
    await ann.command(contest, s.Roll(faces=[15, 16]))
    decided = await ann.command(contest, s.KeepStoryPoints(contestant="aria"))
    for mirror in await settled(decided.version):
        rules = mirror.rules
        assert rules["phase"] == "decided"
        assert rules["outcome"]["winner"] == "heroes"
        outcomes = {o["contestant"]: (o["victory"], o["difference"], o["degree"]) for o in rules["outcome"]["outcomes"]}
        assert outcomes == {"aria": (True, 5, 2), "bors": (True, 5, 2), "ogre": (False, -5, 2)}
        assert rules["score"]["aria"] == "leading 5–0"
        assert [p["tallies"]["ogre"] for p in rules["chart"]] == [0, 0, 3, 5]
    # Acting after defeat: the beaten Ogre tries to remove Brin, as it might have done between rounds.
    at_decision = [rules_of(m) for m in await settled(decided.version)]
    with pytest.raises(Refusal) as refused:
        await gm.command(contest, s.EngageFollower(opponent="ogre", follower="brin", faces=[1, 20]))
    assert refused.value.code == "rules/out_of_contest"
    concluded = await gm.command(contest, Conclude())
    assert concluded.version == decided.version + 1  # the refusal stored nothing
    mirrors = await settled(concluded.version)
    for mirror, earlier in zip(mirrors, at_decision, strict=True):
        assert rules_of(mirror) == earlier, mirror.seat  # and changed nothing anyone sees

    # The exported log verifies and replays to the views each seat was patched to.
    exported = tmp_path / "bridge.jsonl"
    await asyncio.to_thread(
        subprocess.run, [AGON, "export", contest, "--store", server.store, "-o", str(exported)], check=True
    )
    verified = await asyncio.to_thread(
        subprocess.run, [AGON, "verify", str(exported)], capture_output=True, text=True, check=False
    )
    assert verified.returncode == 0, verified.stderr
    for mirror, viewer in zip(mirrors, ["gm", "player:ann", "player:bob", "spectator"], strict=True):
        replayed = await asyncio.to_thread(
            subprocess.run,
            [AGON, "replay", str(exported), "--as", viewer, "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        story = json.loads(replayed.stdout)
        assert story["view"] == mirror.doc, viewer
        assert any("Ogre is out of the sequence (their tally)" in line["text"] for line in story["timeline"])
    await asyncio.gather(*(client.close() for client in everyone))
