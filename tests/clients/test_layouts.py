"""The terminal client's layout of each ruleset, rendered to text from a real view: a contest played with the
ruleset's own pure code, its view built for one viewer and sent as JSON, as ``agon play`` would show it."""

from __future__ import annotations

import io
import json
import re
from typing import Any

from rich.console import Console

from clients.python.terminal import screen
from protocol.codec import encode
from protocol.common import Actor, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import contingency as c
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from server.engine.contest import Contest
from server.engine.ruleset import Ruleset
from server.engine.views import contest_view, viewer_for
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from server.rulesets import ruleset
from tests.conformance.driver import Driver
from tests.rules.contingency.table import BOB, Table, encounter
from tests.rules.karbon.table import Table as KarbonTable

GM = Actor("gm", "gm")
ANN = Actor("ann", "player")
SPECTATOR = Actor("spectator", "spectator")


def shown(rules: Ruleset[Any], contest: Contest[Any], actor: Actor) -> str:
    """What ``actor``'s terminal shows of the contest: its view as the JSON the client receives, laid out."""
    doc = json.loads(encode(contest_view(rules, contest, viewer_for(actor, contest.created.seats))))
    screen.RULESETS[doc["ruleset"]](doc)  # the ruleset's own layout reads this view (no fallback to plain text)
    console = Console(file=io.StringIO(), width=160, color_system=None, record=True)
    console.print(screen.contest(doc))
    return console.export_text()


def rows(text: str, header: str) -> dict[str, dict[str, str]]:
    """The table whose header line starts with ``header``: each row's cells by column name, by its first cell
    (a column starts where its name does; an empty cell is "")."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(header + " "))
    columns = [(m.start(), m.group()) for m in re.finditer(r"\S+(?: \S+)*", lines[at])]
    table: dict[str, dict[str, str]] = {}
    for line in lines[at + 1 :]:
        if not line.strip() or line.startswith(" "):
            break
        ends = [start for start, _ in columns[1:]] + [len(line)]
        cells = {name: line[start:end].strip() for (start, name), end in zip(columns, ends, strict=True)}
        table[cells[header]] = cells
    return table


# --- Karbon ---------------------------------------------------------------------------------------------

FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
NARRATOR = ["d8-1", "d8-2", "d10-1"]


def karbon_after_a_break_and_a_glitch() -> KarbonTable:
    """Vera (five d6) against the narrator (two d8, a d10) on a three-slot track: she rolls five hits and
    stacks them (a break, X); the narrator, given three chips by the GM, rolls three hits and stacks five
    (a glitch, O), keeping one chip in hand."""
    table = KarbonTable()
    table.start(FIVE, NARRATOR, consequence=3, peril=1)
    table.do(GM, k.Adjust(target="narrator_hand", delta=3, reason="chips from earlier"))
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(NARRATOR, 4)}, peril=[5])
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="security"))  # the peril die goes
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 5), **dict.fromkeys(NARRATOR, 1)})
    table.do(GM, k.Stack(side="narrator", chips=5))
    return table


def test_karbon_shows_the_pool_each_hands_dice_the_chips_and_the_victory_track() -> None:
    table = karbon_after_a_break_and_a_glitch()
    for actor in (ANN, GM, SPECTATOR):
        text = shown(table.ruleset, table.contest, actor)
        # the track in the order the marks were made
        assert "track XO" in text
        # each side's hand, die by die with its size, then its chips in hand and on the stack
        sides = rows(text, "side")
        assert sides["agent"] == {
            "side": "agent",
            "hand": " ".join(f"{d}:d6" for d in FIVE),
            "chips": "0",
            "stack": "0",
        }
        assert sides["narrator"] == {
            "side": "narrator",
            "hand": "d8-1:d8 d8-2:d8 d10-1:d10",
            "chips": "1",
            "stack": "0",
        }
        # 15 dice in the main pool less the 8 drawn; the reserve untouched; nothing set aside yet
        pool = next(line for line in text.splitlines() if line.startswith("pool"))
        assert pool.startswith("pool 7: d6-6:d6 d6-7:d6 d8-3:d8 d8-4:d8 d8-5:d8 d10-2:d10 d10-3:d10")
        assert "reserve 5" in pool and "spent 0" in pool
        assert "waiting: the agent chooses after a glitch" in text


# --- Contingency ----------------------------------------------------------------------------------------

SECRET = "Feint"  # an action card only Rook holds
COMMON = ["Strike", "Shoot", "Parley", "Taunt", "Reposition", "Defend"]


def contingency_face_down() -> Table:
    """Rook (Ann's) and Wren (Bob's) at the camp with a bandit, engaged with Wren; a hound on the road.
    Intent is face down: Rook announces a Feint (an Influence action) and a Strike, Wren a Reposition."""
    catalogue = [c.ActionDef(SECRET, "Influence"), *(a for a in DEFAULT_ACTIONS if a.name in COMMON)]
    table = Table(
        encounter(
            [c.Zone(id="camp", name="Camp", traits=["smoky"]), c.Zone(id="road", name="Road")],
            [
                c.Character(id="ann_pc", name="Rook", zone="camp", actions=[SECRET, *COMMON]),
                c.Character(id="bob_pc", name="Wren", zone="camp", actions=COMMON),
                c.Character(id="bandit", name="Bandit", zone="camp", actions=COMMON),
                c.Character(id="hound", name="Hound", zone="road", actions=COMMON),
            ],
            [c.Connection(a="camp", b="road")],
            players={"ann": ["ann_pc"], "bob": ["bob_pc"]},
            engagements=[["bob_pc", "bandit"]],
            intent="face_down",
            actions=catalogue,
        )
    )
    table.announce(
        {
            "ann_pc": (ANN, [SECRET, "Strike"]),
            "bob_pc": (BOB, ["Reposition"]),
            "bandit": (GM, []),
            "hound": (GM, []),
        }
    )
    return table


def test_contingency_shows_who_stands_where_the_engagements_and_face_down_actions_as_their_type() -> None:
    table = contingency_face_down()
    for actor in (ANN, BOB, GM, SPECTATOR):
        text = shown(table.rules, table.contest, actor)
        zones = rows(text, "zone")
        assert zones["Camp (camp)"]["here"] == "ann_pc, bob_pc, bandit" and zones["Camp (camp)"]["traits"] == "smoky"
        assert zones["Road (road)"]["here"] == "hound"
        # each character's zone and whom it is engaged with, both ways
        characters = {name.removesuffix(" *"): cells for name, cells in rows(text, "character").items()}
        assert {name: (cells["zone"], cells["engaged with"]) for name, cells in characters.items()} == {
            "Rook (ann_pc)": ("camp", ""),
            "Wren (bob_pc)": ("camp", "bandit"),
            "Bandit (bandit)": ("camp", "bob_pc"),
            "Hound (hound)": ("road", ""),
        }
        # Rook's two actions, each with its type
        rook = [line for line in text.splitlines() if re.match(r"\s+ann_pc\.\d+: ann_pc ", line)]
        assert len(rook) == 2 and "(Influence)" in rook[0] and "(Combat)" in rook[1], text
        sees = actor in (ANN, GM)  # the card's player and the GM see its name; others only its type
        assert (SECRET in text) is sees
        assert ("Strike" in rook[1]) is sees
        assert sum("face down" in line for line in rook) == (0 if sees else 2)
        # Bob sees his own Reposition by name, as does the GM; Ann and a spectator only as a Move
        assert ("Reposition" in text) is (actor in (BOB, GM))
    assert "Rook (ann_pc) *" in rows(shown(table.rules, table.contest, ANN), "character")  # Ann's own


# --- Hero Wars ------------------------------------------------------------------------------------------


def herowars_duel() -> Driver:
    """Erik (Ann's hero, Sword 15) against Jonas (the GM's, Spear 15), physical dice."""
    return Driver(
        ruleset("herowars"),
        CreateContest(
            ruleset="herowars",
            title="At the ford",
            setup=h.HerowarsSetup(
                prize="the ford",
                contestants=[
                    h.Contestant(id="erik", name="Erik", ability="Sword", rating="15"),
                    h.Contestant(id="jonas", name="Jonas", ability="Spear", rating="15"),
                ],
            ),
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["erik"])],
            dice="physical",
        ),
    )


def test_herowars_shows_the_contestants_ap_and_the_exchange() -> None:
    table = herowars_duel()
    table.do(ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10)))
    table.do(GM, Declare(participant="jonas", payload=h.Intent(action="hold the ford", bid=3)))
    table.do(GM, h.Roll(faces=[6, 12]))  # both succeed, Erik with the lower roll: he wins, Jonas loses 10

    gm = rows(shown(table.rules, table.contest, GM), "contestant")
    assert {name: (c["rating"], c["AP"], c["hero points"]) for name, c in gm.items()} == {
        "Erik (erik)": ("15", "15", "0"),
        "Jonas (jonas)": ("15", "15", "0"),
    }
    for actor in (GM, ANN):
        text = shown(table.rules, table.contest, actor)
        exchange = next(line for line in text.splitlines() if line.startswith("exchange"))
        assert exchange.startswith("exchange 1: erik (Success, rolled 6) against jonas (Success, rolled 12), bid 10")
        assert "waiting for erik" in exchange  # Ann lets it stand or spends a hero point
    ann = rows(shown(table.rules, table.contest, ANN), "contestant")
    assert ann["Erik (erik) *"]["AP"] == "15"
    assert ann["Jonas (jonas)"]["AP"] == "?"  # the GM's contestant's AP stays hidden until it moves

    table.do(ANN, h.PassHeroPoint(contestant="erik"))
    for actor in (ANN, GM, SPECTATOR):
        text = shown(table.rules, table.contest, actor)
        assert not any(line.startswith("exchange") for line in text.splitlines())  # resolved
        ap = {name.removesuffix(" *"): c["AP"] for name, c in rows(text, "contestant").items()}
        # Jonas lost 10 for all to see; Erik's AP has not moved: a spectator does not know it yet
        assert ap == {"Erik (erik)": "?" if actor == SPECTATOR else "15", "Jonas (jonas)": "5"}
