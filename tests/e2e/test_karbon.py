"""A Karbon scene over real sockets against a real `agon serve`, with physical dice typed in by the GM.

The GM sets up a contest, names the hands drawn at the table, undoes a mistyped roll and types it again;
the player declares its risk sealed, stacks its chips and picks its break. Then the exported log, replayed
by `agon replay`, gives exactly the view the GM's socket ended with.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from clients.python.client import AgonClient, Refusal
from protocol.common import Seat
from protocol.events import CreateContest, Declare, Undo
from protocol.messages import Follow
from protocol.rulesets import karbon as k
from tests.e2e.conftest import AGON, ServerFactory

AGENT = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
NARRATOR = ["d10-1", "d10-2"]


def scene() -> CreateContest:
    return CreateContest(
        ruleset="karbon",
        title="The docks at night",
        dice="physical",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["vera"])],
        setup=k.KarbonSetup(agent="vera", name="Vera", fortune=1),
    )


async def test_a_karbon_contest_with_physical_dice_and_an_undo(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(scene())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])

    await gm.command(contest, k.StartContest(goal="slip past", ability="Stealth", level=5, challenge=2, consequence=1))
    drawn = await gm.command(contest, k.DrawHands(agent=AGENT, narrator=NARRATOR))
    mirror = await ann.wait_version(contest, drawn.version)
    assert [d["id"] for d in mirror.rules["sides"]["agent"]["hand"]] == AGENT
    assert len(mirror.rules["pool"]) == 8 and mirror.rules["phase"] == "declaring"

    declared = await ann.command(contest, Declare(participant="vera", payload=k.Risk(all_in=False)))
    before_roll = (await gm.wait_version(contest, declared.version)).rules

    # the player may not type in physical dice, nor stack before the round's roll
    for command, code in [
        (k.Roll(faces=dict.fromkeys(AGENT + NARRATOR, 1)), "dice/typed_by_gm"),
        (k.Stack(side="agent", chips=1), "rules/out_of_phase"),
    ]:
        try:
            await ann.command(contest, command)
        except Refusal as refusal:
            assert refusal.code == code
        else:
            raise AssertionError(f"{command} was accepted")

    # a mistyped roll: the narrator wins it; the GM undoes it and types the faces again
    wrong = await gm.command(contest, k.Roll(faces={**dict.fromkeys(AGENT, 5), "d10-1": 1, "d10-2": 2}))
    assert (await ann.wait_version(contest, wrong.version)).rules["sides"]["narrator"]["chips"] == 2
    undone = await gm.command(contest, Undo())
    assert (await ann.wait_version(contest, undone.version)).rules == before_roll

    rolled = await gm.command(contest, k.Roll(faces={**dict.fromkeys(AGENT, 2), "d10-1": 4, "d10-2": 9}))
    mirror = await ann.wait_version(contest, rolled.version)
    assert mirror.rules["last_roll"]["winner"] == "agent"
    assert mirror.rules["sides"]["agent"]["chips"] == 5 and mirror.rules["stacking"] == ["agent"]

    stacked = await ann.command(contest, k.Stack(side="agent", chips=5))
    mirror = await ann.wait_version(contest, stacked.version)
    assert mirror.rules["contest"]["track"] == ["X"]
    assert mirror.rules["pending"] == [{"payout": "break", "chooser": "agent", "choice": None}]

    chosen = await ann.command(contest, k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["r6-3"]))
    final = await gm.wait_version(contest, chosen.version)
    outcome = final.rules["last_outcome"]
    assert (outcome["outcome"], outcome["wins"], outcome["losses"]) == ("won", 1, 0)
    assert final.rules["phase"] == "between"
    assert [d["id"] for d in final.rules["reserve"]] == ["d6-1", "r6-1", "r6-2", "r6-4", "r6-5"]

    # the exported log verifies, and its replay ends in the view the GM's socket holds
    log = tmp_path / "scene.jsonl"
    store = server.store
    exported = subprocess.run([AGON, "export", contest, "--store", store, "-o", str(log)], capture_output=True)
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run([AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    replayed = subprocess.run([AGON, "replay", str(log), "--as", "gm", "--json"], capture_output=True, text=True)
    assert replayed.returncode == 0, replayed.stderr
    story = json.loads(replayed.stdout)
    assert any("the GM undid back to version" in line["text"] for line in story["timeline"])
    assert story["view"] == final.doc
    await asyncio.gather(gm.close(), ann.close())
