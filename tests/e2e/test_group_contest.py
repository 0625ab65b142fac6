"""A 2-vs-3 group extended contest played through a real `agon serve` with physical dice (seed 000 §5.3.3).

Ann plays Aria, Bob plays Bran; the GM runs an orc, a wolf and a shaman. Along the way: sealed declarations,
each of the three ordering modes, a knock-out before its turn, a final action, a loan, a gift, a
disengagement and a rejoin, and the group outcome. The exported log, folded again, gives the same views.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from clients.python.client import AgonClient
from protocol.codec import decode
from protocol.common import Actor, Seat
from protocol.events import Conclude, CreateContest, Declare, Envelope
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.engine.contest import fold
from server.engine.views import viewer_for
from server.feed.views import view_doc
from server.rulesets import ruleset
from tests.e2e.conftest import AGON, ServerFactory

HEROES = {"aria": "15", "bran": "12"}
RAIDERS = {"orc": "12", "wolf": "10", "shaman": "8"}


def raid() -> CreateContest:
    contestants = [
        x.Contestant(id=c, name=c.capitalize(), ability="Fight", rating=r, side="heroes", hero_points=int(c == "bran"))
        for c, r in HEROES.items()
    ] + [x.Contestant(id=c, name=c.capitalize(), ability="Fight", rating=r, side="raiders") for c, r in RAIDERS.items()]
    return CreateContest(
        ruleset="extended",
        title="Raid on the mill",
        dice="physical",
        setup=x.ExtendedSetup(prize="the mill", contestants=contestants),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["bran"])],
    )


def attack(target: str, bid: int, daring: x.Daring = "bold", action: str = "") -> x.Intent:
    return x.Intent(action=action or f"at {target}", bid=bid, daring=daring, targets=[target])


def ap(doc: dict[str, Any]) -> dict[str, int | None]:
    return {c["id"]: c["ap"] for c in doc["rules"]["contestants"]}


async def test_a_two_against_three_group_contest_over_real_sockets(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(raid())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    watcher = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.spectator)])
    everyone = [gm, ann, bob, watcher]
    player = {"aria": ann, "bran": bob}

    async def declare(intents: dict[str, x.Intent]) -> int:
        version = 0
        for contestant, intent in intents.items():
            version = (await player.get(contestant, gm).command(contest, Declare(contestant, intent))).version
        return version

    async def settle(version: int) -> list[dict[str, Any]]:
        docs = []
        for client in everyone:
            mirror = await client.wait_version(contest, version)
            assert mirror.doc is not None
            docs.append(mirror.doc)
        return docs

    async def roll(faces: list[int | None], passes: str | None = None) -> int:
        """The GM rolls; each PC's player in the exchange lets the result stand (``passes``: a PC who could
        have changed it with a hero point)."""
        version = (await gm.command(contest, x.Roll(faces=faces))).version
        exchange = (await gm.wait_version(contest, version)).doc["rules"]["exchange"]  # type: ignore[index]
        if passes is not None:
            assert exchange is not None and passes in exchange["hero_points_pending"]
        for c in exchange["answers_pending"] if exchange else []:
            version = (await player[c].command(contest, x.PassHeroPoint(contestant=c))).version
        return version

    # Round 1: sealed declarations. Aria's intent reaches only Ann and the GM until all are in.
    sealed = await ann.command(contest, Declare("aria", attack("orc", 10, "reckless", "a sealed charge")))
    for client, sees in zip(everyone, [True, True, False, False], strict=True):
        mirror = await client.wait_version(contest, sealed.version)
        assert ("a sealed charge" in str(mirror.doc)) is sees, mirror.seat
    revealed = await declare(
        {
            "bran": attack("wolf", 3),
            "orc": attack("aria", 4, "daring"),
            "wolf": attack("bran", 2, "cautious"),
            "shaman": attack("bran", 3),
        }
    )
    for doc in await settle(revealed):
        assert doc["rules"]["phase"] == "ready" and doc["rules"]["intents"]["aria"]["action"] == "a sealed charge"

    # Ordered by daring: reckless Aria, daring orc, then the bold Bran and shaman (equal bids: setup order).
    ordered = (await gm.command(contest, x.OrderBy(mode="daring"))).version
    assert (await settle(ordered))[3]["rules"]["order"] == ["aria", "orc", "bran", "shaman", "wolf"]
    await roll([5, 16])  # Aria succeeds, the orc fails: it loses 10
    await roll([19, 19])  # the orc's attack: equal dice, a tie
    # Bran lends Aria 4 AP: his 3 against a resistance of 4 (10: a Failure): a Minor Victory
    loan = (await gm.command(contest, x.Lend(lender="bran", target="aria", ap=4, faces=[3, 10]))).version
    assert ap((await settle(loan))[0]) == {"aria": 19, "bran": 8, "orc": 2, "wolf": 10, "shaman": 8}
    await roll([5, 16], passes="bran")  # the shaman hits Bran for 3
    round_two = await roll([19, 19], passes="bran")  # the wolf: a tie
    assert (await settle(round_two))[0]["rules"]["round"] == 2

    # Round 2, ordered by bid: the wolf's 10 first; Bran (3, bold) before the shaman (3, bold), the orc last.
    await declare(
        {
            "aria": attack("orc", 5),
            "bran": attack("wolf", 3),
            "orc": attack("aria", 2),
            "wolf": attack("bran", 10),
            "shaman": attack("aria", 3),
        }
    )
    ordered = (await gm.command(contest, x.OrderBy(mode="bid"))).version
    assert (await settle(ordered))[0]["rules"]["order"] == ["wolf", "aria", "bran", "shaman", "orc"]
    # The wolf's Critical against Bran's Fumble: 3 × 10 transferred; Bran at -25 before his turn comes.
    await roll([1, 20], passes="bran")
    knocked = await roll([5, 16])  # Aria takes the orc from 2 to -3: the orc is out before its turn too
    docs = await settle(knocked)
    assert docs[0]["rules"]["next_actor"] == "shaman"  # Bran's turn is skipped: he is out
    assert {c["id"]: c["out"] for c in docs[3]["rules"]["contestants"]}["bran"] is True
    # Bran's final action: a hero point, his 1 (a Critical) against a resistance of 25 (5W: 19 is a Failure,
    # bumped to Success): a Minor Victory, back with 1/4 of his 12 starting AP; his turn had not come.
    final = (await gm.command(contest, x.FinalAction(contestant="bran", faces=[1, 19]))).version
    docs = await settle(final)
    assert ap(docs[0])["bran"] == 3 and docs[0]["rules"]["next_actor"] == "bran"
    assert docs[2]["rules"]["contestants"][1]["hero_points"] == 0  # Bob sees his own hero points
    assert docs[3]["rules"]["contestants"][1]["hero_points"] is None  # a spectator does not
    # Bran disengages from the wolf: his 3 against the wolf's 16: a Minor Victory, he withdraws.
    withdrawn = (await gm.command(contest, x.Disengage(contestant="bran", opponent="wolf", faces=[3, 16]))).version
    assert (await settle(withdrawn))[0]["rules"]["contestants"][1]["withdrawn"] is True
    round_three = await roll([19, 19])  # the shaman's attack on Aria: a tie; the orc is out: round 3
    assert (await settle(round_three))[0]["rules"]["round"] == 3

    # Round 3: a gift from the miller, outside the contest (14 against 10: a Minor Victory, +5 to Aria).
    gift = x.Gift(giver="the miller", rating="14", recipient="aria", bid=5, faces=[3, 15])
    gifted = (await gm.command(contest, gift)).version
    assert ap((await settle(gifted))[0])["aria"] == 24
    await declare({"aria": attack("shaman", 8, "daring"), "wolf": attack("aria", 3), "shaman": attack("aria", 2)})
    ordered = (await gm.command(contest, x.OrderBy(mode="ap"))).version
    assert (await settle(ordered))[0]["rules"]["order"] == ["wolf", "aria", "shaman"]  # 40, 24, 8 AP
    await roll([19, 19])
    knocked = await roll([5, 16])  # Aria takes the shaman to 0; it never acts
    assert (await settle(knocked))[1]["rules"]["parting_shots"] == {"aria": "shaman"}  # the round waits
    await ann.command(contest, x.PartingShot(contestant="aria", bid=3, action="a parting shot"))
    round_four = await roll([5, 16])  # the parting shot lands: the shaman at -3, and round 4 begins
    docs = await settle(round_four)
    assert docs[0]["rules"]["round"] == 4 and ap(docs[0])["shaman"] == -3

    # Bran rejoins with the 3 AP he left with; Aria's reckless all-in ends it.
    rejoined = (await bob.command(contest, x.Rejoin(contestant="bran"))).version
    assert ap((await settle(rejoined))[0])["bran"] == 3
    await declare({"aria": attack("wolf", 24, "reckless"), "bran": attack("wolf", 1), "wolf": attack("bran", 3)})
    await gm.command(contest, x.OrderBy(mode="daring"))
    decided = await roll([1, 20])  # Critical against Fumble: the wolf transfers 3 × 24 and ends at -32
    for doc in await settle(decided):
        outcome = doc["rules"]["outcome"]
        assert doc["rules"]["phase"] == "decided" and outcome["winning_side"] == "heroes"
        own = {o["contestant"]: (o["result"], o["level"]) for o in outcome["outcomes"]}
        assert own == {
            "aria": ("victory", "Complete"),
            "bran": ("victory", "Complete"),  # his last opponent engaged was the wolf
            "orc": ("defeat", "Marginal"),
            "wolf": ("defeat", "Complete"),
            "shaman": ("defeat", "Marginal"),
        }
        sides = {s["side"]: (s["result"], s["level"]) for s in outcome["sides"]}
        assert sides == {"heroes": ("victory", "Complete"), "raiders": ("defeat", "Marginal")}
    concluded = (await gm.command(contest, Conclude())).version
    final_docs = await settle(concluded)

    # The exported log verifies, and folding it again gives every viewer the same view.
    log = tmp_path / "raid.jsonl"
    exported = subprocess.run([AGON, "export", contest, "--store", server.store, "-o", str(log)], capture_output=True)
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run([AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr + verified.stdout
    envelopes = [decode(line, Envelope) for line in log.read_bytes().splitlines()]
    rules = ruleset("extended")
    replayed = fold(rules, envelopes)
    for client, doc in zip(everyone, final_docs, strict=True):
        mirror = client.mirrors[contest]
        assert mirror.role is not None
        viewer = viewer_for(Actor(mirror.seat or "spectator", mirror.role), replayed.created.seats)
        assert view_doc(rules, replayed, viewer) == doc, mirror.seat
    await asyncio.gather(*(client.close() for client in everyone))
