"""A Contingency encounter through a real `agon serve`: face-down secrecy byte for byte, and two full rounds
with three players, a barrier no step or move crosses, environmental actions, a zone split, a rewind that
undoes it, the split made again, and an exported log that replays, for every seat, to what it saw live."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from clients.python.client import AgonClient, Refusal
from protocol.common import Seat
from protocol.events import CloseDeclarations, Conclude, CreateContest, Declare, Rewind
from protocol.messages import Follow, Invitations
from protocol.rulesets import contingency as c
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from tests.e2e.conftest import AGON, ServerFactory

FEINT = "Feint-of-the-Silver-Heron"  # action cards only Rook holds
AMBUSH = "Ambush-from-the-Reeds"
COMMON = ["Strike", "Shoot", "Taunt", "Reposition", "Leap", "Defend"]


def _encounter(mode: c.IntentMode) -> CreateContest:
    """The ford: a bank, the river and a far shore, and a rock in the river across a Hard (6) Leap; Rook
    (Ann), Wren (Bob) and Moss (Cat) against a bandit."""
    actions = [
        c.ActionDef(FEINT, "Influence"),
        c.ActionDef(AMBUSH, "Combat"),
        *(a for a in DEFAULT_ACTIONS if a.name in COMMON),
    ]
    return CreateContest(
        ruleset="contingency",
        title="The ford",
        dice="physical",
        seats=[
            Seat("gm", "gm"),
            Seat("ann", "player", ["rook"]),
            Seat("bob", "player", ["wren"]),
            Seat("cat", "player", ["moss"]),
        ],
        setup=c.ContingencySetup(
            zones=[
                c.Zone(id="bank", name="Bank"),
                c.Zone(id="river", name="River", traits=["Forced Movement"], modifier=1),
                c.Zone(id="shore", name="Far shore"),
                c.Zone(id="rock", name="Rock"),
            ],
            connections=[
                c.Connection(a="bank", b="river"),
                c.Connection(a="river", b="shore"),
                c.Connection(a="river", b="rock", barrier=c.Barrier(difficulty=6, action="Leap")),
            ],
            characters=[
                c.Character(id="rook", name="Rook", zone="bank", actions=[FEINT, AMBUSH, *COMMON]),
                c.Character(id="wren", name="Wren", zone="bank", actions=COMMON),
                c.Character(id="moss", name="Moss", zone="river", actions=COMMON),
                c.Character(id="bandit", name="Bandit", zone="bank", actions=COMMON),
            ],
            engagements=[["wren", "bandit"]],
            actions=actions,
            intent=mode,
            players_type_faces=True,
        ),
    )


def _leaks(client: AgonClient, secret: str) -> list[str]:
    return [frame for frame in client.frames if secret in frame]


async def _table(server_url: str, mode: c.IntentMode) -> tuple[str, dict[str, AgonClient], Invitations]:
    gm = await AgonClient.connect(server_url, record_frames=True)
    created = await gm.create(_encounter(mode))
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    clients = {"gm": gm}
    for seat in ("ann", "bob", "cat"):
        clients[seat] = await AgonClient.connect(
            server_url, follow=[Follow(contest, tokens.seats[seat])], record_frames=True
        )
    clients["watcher"] = await AgonClient.connect(
        server_url, follow=[Follow(contest, tokens.spectator)], record_frames=True
    )
    return contest, clients, tokens


async def test_face_down_names_reach_nobody_else_before_they_resolve(agon_server: ServerFactory) -> None:
    server = agon_server()
    contest, clients, tokens = await _table(server.ws_url, "face_down")
    gm, ann, bob, cat, watcher = (clients[k] for k in ("gm", "ann", "bob", "cat", "watcher"))
    others = [bob, cat, watcher]
    try:
        await gm.command(contest, c.OpenIntent())
        await ann.command(contest, Declare(participant="rook", payload=c.Intent(actions=[FEINT, AMBUSH])))
        await bob.command(contest, Declare(participant="wren", payload=c.Intent(actions=["Strike"])))
        await cat.command(contest, Declare(participant="moss", payload=c.Intent(actions=["Reposition"])))
        revealed = await gm.command(contest, Declare(participant="bandit", payload=c.Intent(actions=["Shoot"])))
        # someone joins late and someone reconnects while the card is still face down
        late = await AgonClient.connect(server.ws_url, follow=[Follow(contest, tokens.spectator)], record_frames=True)
        await bob.reconnect()
        for client in [*clients.values(), late]:
            await client.wait_version(contest, revealed.version)
        for client in [*others, late]:
            assert not _leaks(client, FEINT) and not _leaks(client, AMBUSH), client
            view = client.mirrors[contest].rules
            rook = [a for a in view["actions"] if a["character"] == "rook"]
            assert [(a["type"], a["name"]) for a in rook] == [("Influence", None), ("Combat", None)]
            if client is not late:  # the reveal's notice (a late joiner gets the view only)
                assert _leaks(client, "Rook: face down: Influence, Combat")
        assert _leaks(ann, FEINT) and _leaks(gm, FEINT)  # its player and the GM do see it

        # Influence first: the Feint resolves, its card is turned over for everyone; the Ambush stays down
        rolled = await ann.command(contest, c.Roll(faces=[6, 6, 6]))
        for client in [*others, late]:
            await client.wait_version(contest, rolled.version)
            assert _leaks(client, FEINT) and not _leaks(client, AMBUSH)

        # Rook cannot perform her Ambush: a skipped card is never turned over
        skipped = await ann.command(contest, c.Skip(action="rook.2"))
        for client in [*clients.values(), late]:
            await client.wait_version(contest, skipped.version)
        for client in [*others, late]:
            assert not _leaks(client, AMBUSH), client
            rook = [a for a in client.mirrors[contest].rules["actions"] if a["character"] == "rook"]
            assert [(a["name"], a["status"]) for a in rook] == [(FEINT, "resolved"), (None, "skipped")]
        for client in others:
            assert _leaks(client, "Rook cannot perform its face-down Combat action"), client
        assert _leaks(ann, f"Rook cannot perform {AMBUSH}") and _leaks(gm, f"Rook cannot perform {AMBUSH}")
        await late.close()
    finally:
        for client in clients.values():
            await client.close()


async def _refused(client: AgonClient, contest: str, command: Any, code: str) -> None:
    """The command is refused with ``code`` and the contest does not move."""
    await client.ping()  # the pong comes after every patch already queued for this connection
    before = client.mirrors[contest].version
    try:
        await client.command(contest, command)
    except Refusal as refusal:
        assert refusal.code == code, refusal
    else:
        raise AssertionError(f"{command} was accepted")
    await client.ping()
    assert client.mirrors[contest].version == before


def _zones(doc: dict[str, Any]) -> dict[str, list[str]]:
    return {z["id"]: z["characters"] for z in doc["rules"]["zones"]}


SPLIT = c.SplitZone(
    zone="bank",
    into=[c.Zone(id="upper", name="Upper bank"), c.Zone(id="lower", name="Lower bank", traits=["Mud"])],
    placements={"rook": "upper", "wren": "lower", "bandit": "upper"},
)
SPLIT_ZONES = {"river": [], "shore": ["moss"], "rock": [], "upper": ["rook", "bandit"], "lower": ["wren"]}
UNSPLIT_ZONES = {"bank": ["rook", "wren", "bandit"], "river": [], "shore": ["moss"], "rock": []}
REPLAY_AS = ["gm", "player:ann", "player:bob", "player:cat", "spectator"]  # the order of ``_table``'s clients


def _replayed(log: Path, viewer: str, at: int | None = None) -> dict[str, Any]:
    """``agon replay --json`` of the exported log as ``viewer`` (at version ``at``)."""
    stop = ["--at", str(at)] if at is not None else []
    replayed = subprocess.run(
        [AGON, "replay", str(log), "--as", viewer, "--json", *stop], capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stderr
    story: dict[str, Any] = json.loads(replayed.stdout)
    return story


async def test_two_rounds_a_split_a_rewind_and_a_replay_that_matches(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    database = tmp_path / "ford.sqlite3"
    server = agon_server(store=f"sqlite:{database}")
    contest, clients, _ = await _table(server.ws_url, "public")
    gm, ann, bob, cat = (clients[k] for k in ("gm", "ann", "bob", "cat"))
    everyone = list(clients.values())

    async def all_at(version: int) -> list[dict[str, Any]]:
        docs = []
        for client in everyone:
            doc = (await client.wait_version(contest, version)).doc
            assert doc is not None
            docs.append(doc)
        return docs

    try:
        # Round 1: the scene, sealed intent from three players and the GM, resolution in the rules' order.
        await gm.command(contest, c.SetScene(text="Rain on the ford", foreshadow="the river is rising"))
        await gm.command(contest, c.OpenIntent())
        twice = Declare(participant="rook", payload=c.Intent(actions=["Strike", "Strike"]))
        await _refused(ann, contest, twice, "rules/repeated_action")
        await ann.command(contest, Declare(participant="rook", payload=c.Intent(actions=["Taunt", "Strike"])))
        await bob.command(contest, Declare(participant="wren", payload=c.Intent(actions=["Strike"])))
        await cat.command(contest, Declare(participant="moss", payload=c.Intent(actions=["Reposition"])))
        revealed = await gm.command(contest, CloseDeclarations())  # the bandit waits
        for doc in await all_at(revealed.version):
            assert [a["id"] for a in doc["rules"]["actions"]] == ["rook.1", "moss.1", "rook.2", "wren.1"]
        await ann.command(contest, c.Roll(faces=[5, 7, 2]))  # Taunt: result 5
        # a step never crosses a barrier: the Leap onto the rock needs its own roll
        across = c.Roll(step=c.Step(zone="rock"), faces=[4, 4, 9])
        await _refused(cat, contest, across, "rules/barrier")
        await cat.command(contest, c.Roll(faces=[4, 4, 9]))  # Reposition: 1 + 4 = 5 movement points
        await _refused(cat, contest, c.Move(character="moss", path=["rock"]), "rules/barrier")  # nor do points
        moved = await cat.command(contest, c.Move(character="moss", path=["shore"]))  # 2 + 1 (the river's)
        await ann.command(contest, c.Roll(step=c.Step(engage="bandit"), faces=[1, 4, 9]))  # Strike at −2
        penalty = await ann.command(contest, c.TakePenalty(reductions=[0, 1, 1]))
        for doc in await all_at(penalty.version):
            assert doc["rules"]["last"]["faces"] == [1, 3, 8] and doc["rules"]["last"]["result"] == 3
            assert doc["rules"]["ranges"]["rook"]["bandit"] == "engaged"
            assert _zones(doc)["shore"] == ["moss"]
        assert moved.version < penalty.version
        # Wren is engaged with the bandit: no step
        await _refused(bob, contest, c.Roll(step=c.Step(zone="river"), faces=[8, 8, 8]), "rules/engaged")
        await bob.command(contest, c.Roll(faces=[8, 8, 8]))
        env = await gm.command(contest, c.Environmental(text="the river bursts its banks"))
        for doc in await all_at(env.version):
            assert doc["rules"]["phase"] == "environment"
            assert doc["rules"]["environmental"] == ["the river bursts its banks"]
        round_two = await gm.command(contest, c.EndRound())
        at_round_two = await all_at(round_two.version)
        assert at_round_two[0]["rules"]["round"] == 2 and at_round_two[0]["rules"]["phase"] == "scene"

        # Round 2: the GM splits the bank; the map changes for everyone.
        split = await gm.command(contest, SPLIT)
        for doc in await all_at(split.version):
            assert _zones(doc) == SPLIT_ZONES
            assert doc["rules"]["ranges"]["rook"]["bandit"] == "engaged"
            assert doc["rules"]["ranges"]["wren"]["bandit"] == "near"
        await gm.command(contest, c.OpenIntent())
        await ann.command(contest, Declare(participant="rook", payload=c.Intent(actions=["Strike"])))
        await bob.command(contest, Declare(participant="wren", payload=c.Intent(actions=["Shoot"])))
        await cat.command(contest, Declare(participant="moss", payload=c.Intent(actions=[])))
        await gm.command(contest, Declare(participant="bandit", payload=c.Intent(actions=["Strike"])))
        await ann.command(contest, c.Roll(faces=[3, 3, 3]))

        # The GM rewinds to the start of round 2: the split and everything after it are gone for everyone.
        rewound = await gm.command(contest, Rewind(to_version=round_two.version))
        for doc, before in zip(await all_at(rewound.version), at_round_two, strict=True):
            assert doc["rules"] == before["rules"]
            assert "upper" not in _zones(doc)

        # Round 2 again, another way, played through: the scene, the bank split anew, intent, every action,
        # the environment.
        await gm.command(contest, c.AddTrait(zone="river", trait="Flooded"))
        scene = await gm.command(contest, c.SetScene(text="The river floods", foreshadow="the bank is crumbling"))
        before_split = await all_at(scene.version)
        split = await gm.command(contest, SPLIT)
        after_split = await all_at(split.version)
        for doc, before in zip(after_split, before_split, strict=True):
            assert _zones(before) == UNSPLIT_ZONES
            assert _zones(doc) == SPLIT_ZONES
            assert doc["rules"]["ranges"]["rook"]["bandit"] == "engaged"
            assert doc["rules"]["ranges"]["wren"]["bandit"] == "near"
        await gm.command(contest, c.OpenIntent())
        await cat.command(contest, Declare(participant="moss", payload=c.Intent(actions=["Taunt"])))
        await ann.command(contest, Declare(participant="rook", payload=c.Intent(actions=["Strike"])))
        await bob.command(contest, Declare(participant="wren", payload=c.Intent(actions=["Strike"])))
        revealed = await gm.command(contest, Declare(participant="bandit", payload=c.Intent(actions=["Strike"])))
        for doc in await all_at(revealed.version):
            assert doc["rules"]["round"] == 2 and doc["rules"]["phase"] == "resolving"
            assert [a["id"] for a in doc["rules"]["actions"]] == ["moss.1", "rook.1", "wren.1", "bandit.1"]
        await cat.command(contest, c.Roll(faces=[5, 5, 5]))  # Taunt (Influence) first
        await ann.command(contest, c.Roll(faces=[6, 6, 6]))
        await bob.command(contest, c.Roll(faces=[7, 7, 7]))
        last = await gm.command(contest, c.Roll(faces=[2, 3, 4]))  # the bandit's Strike: the queue is empty
        for doc in await all_at(last.version):
            results = {a["id"]: (a["status"], a["result"]) for a in doc["rules"]["actions"]}
            assert results == {
                "moss.1": ("resolved", 5),
                "rook.1": ("resolved", 6),
                "wren.1": ("resolved", 7),
                "bandit.1": ("resolved", 3),
            }
            assert doc["rules"]["phase"] == "environment"
        await gm.command(contest, c.Environmental(text="the bank crumbles into the flood"))
        round_three = await gm.command(contest, c.EndRound())
        for doc in await all_at(round_three.version):
            assert doc["rules"]["round"] == 3 and doc["rules"]["phase"] == "scene"
            assert "Flooded" in next(z for z in doc["rules"]["zones"] if z["id"] == "river")["traits"]
            assert _zones(doc) == SPLIT_ZONES
        concluded = await gm.command(contest, Conclude())
        final = await all_at(concluded.version)
    finally:
        for client in everyone:
            await client.close()

    log = tmp_path / "ford.jsonl"
    exported = subprocess.run([AGON, "export", contest, "--store", f"sqlite:{database}", "-o", str(log)])
    assert exported.returncode == 0
    verified = subprocess.run([AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    # Every seat's replay ends at the view it was patched to, and stopped on either side of the split that
    # stands shows the bank whole, then split, as that seat saw it live.
    for viewer, seen, before, after in zip(REPLAY_AS, final, before_split, after_split, strict=True):
        story = _replayed(log, viewer)
        assert story["view"] == seen, viewer
        assert _zones(story["view"]) == SPLIT_ZONES, viewer
        splits = [e["undone"] for e in story["timeline"] if e["kind"] == "contingency.zone_split"]
        assert splits == [True, False], viewer  # the first split was rewound away, the second stands
        assert any(e["kind"] == "control.rewound" for e in story["timeline"]), viewer
        unsplit = _replayed(log, viewer, at=scene.version)["view"]
        assert unsplit == before and _zones(unsplit) == UNSPLIT_ZONES, viewer
        assert _replayed(log, viewer, at=split.version)["view"] == after, viewer
