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
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
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


DIE_ID = re.compile(r"\b[dr]\d+-\d+\b")  # a die's id, as commands may name it (never shown)


def test_karbon_shows_the_pool_each_hands_dice_the_chips_and_the_victory_track() -> None:
    table = karbon_after_a_break_and_a_glitch()
    for actor in (ANN, GM, SPECTATOR):
        text = shown(table.ruleset, table.contest, actor)
        # the track in the order the marks were made
        assert "track XO" in text
        # each side's hand, die by die with its size and the face it shows in the test, then its chips in hand
        # and on the stack; the agent's side by the agent's name
        sides = rows(text, "side")
        assert sides["Vera"] == {
            "side": "Vera",
            "hand": ", ".join(["d6 showing 5"] * 5),
            "chips": "0",
            "stack": "0",
        }
        assert sides["narrator"] == {
            "side": "narrator",
            "hand": "d8 showing 1, d8 showing 1, d10 showing 1",
            "chips": "1",
            "stack": "0",
        }
        # 15 dice in the main pool less the 8 drawn, counted by kind; the reserve untouched; nothing set aside yet
        pool = next(line for line in text.splitlines() if line.startswith("pool"))
        assert pool.startswith("pool 7: 2 d6, 3 d8 and 2 d10 ·")
        assert "reserve 5" in pool and "spent 0" in pool
        assert "waiting: Vera chooses after a glitch" in text and "may stack: the narrator" in text
        assert text.splitlines()[0].startswith("The docks at night — Vera · test")
        assert not DIE_ID.search(text) and "vera" not in text, text


def test_karbon_hands_before_the_roll_are_counted_by_kind() -> None:
    table = KarbonTable()
    table.start(FIVE, NARRATOR, consequence=3, peril=1)
    text = shown(table.ruleset, table.contest, ANN)
    sides = rows(text, "side")
    assert (sides["Vera"]["hand"], sides["narrator"]["hand"]) == ("5 d6", "2 d8 and a d10")
    assert not DIE_ID.search(text), text


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
        assert zones["Camp"]["here"] == "Rook, Wren, Bandit" and zones["Camp"]["traits"] == "smoky"
        assert zones["Road"]["here"] == "Hound"
        # each character's zone and whom it is engaged with, both ways, all by name
        characters = {name.removesuffix(" *"): cells for name, cells in rows(text, "character").items()}
        assert {name: (cells["zone"], cells["engaged with"]) for name, cells in characters.items()} == {
            "Rook": ("Camp", ""),
            "Wren": ("Camp", "Bandit"),
            "Bandit": ("Camp", "Wren"),
            "Hound": ("Road", ""),
        }
        # Rook's two actions, each called by Rook's name and its number, with its type
        rook = [line for line in text.splitlines() if re.match(r"\s+Rook\.\d+: ", line)]
        assert len(rook) == 2 and "(Influence)" in rook[0] and "(Combat)" in rook[1], text
        assert "next: Rook.1" in text.splitlines()[0]
        assert not any(ident in text for ident in ("ann_pc", "bob_pc", "camp", "road")), text
        sees = actor in (ANN, GM)  # the card's player and the GM see its name; others only its type
        assert (SECRET in text) is sees
        assert ("Strike" in rook[1]) is sees
        assert sum("face down" in line for line in rook) == (0 if sees else 2)
        # Bob sees his own Reposition by name, as does the GM; Ann and a spectator only as a Move
        assert ("Reposition" in text) is (actor in (BOB, GM))
    assert "Rook *" in rows(shown(table.rules, table.contest, ANN), "character")  # Ann's own


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
        "Erik": ("15", "15", "0"),
        "Jonas": ("15", "15", "0"),
    }
    for actor in (GM, ANN):
        text = shown(table.rules, table.contest, actor)
        exchange = next(line for line in text.splitlines() if line.startswith("exchange"))
        assert exchange.startswith("exchange 1: Erik (Success, rolled 6) against Jonas (Success, rolled 12), bid 10")
        assert "waiting for Erik" in exchange  # Ann lets it stand or spends a hero point
    ann = rows(shown(table.rules, table.contest, ANN), "contestant")
    assert ann["Erik *"]["AP"] == "15"
    assert ann["Jonas"]["AP"] == "?"  # the GM's contestant's AP stays hidden until it moves

    table.do(ANN, h.PassHeroPoint(contestant="erik"))
    for actor in (ANN, GM, SPECTATOR):
        text = shown(table.rules, table.contest, actor)
        assert not any(line.startswith("exchange") for line in text.splitlines())  # resolved
        ap = {name.removesuffix(" *"): c["AP"] for name, c in rows(text, "contestant").items()}
        # Jonas lost 10 for all to see; Erik's AP has not moved: a spectator does not know it yet
        assert ap == {"Erik": "?" if actor == SPECTATOR else "15", "Jonas": "5"}


# --- names, never ids -------------------------------------------------------------------------------------


def ambush() -> Driver:
    """Aria Vance (Ann's) against two orcs the GM runs, both called Orc, and Grisk: every id differs from its
    name."""
    return Driver(
        ruleset("extended"),
        CreateContest(
            ruleset="extended",
            title="Ambush",
            dice="physical",
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["p1"])],
            setup=x.ExtendedSetup(
                prize="the pass",
                contestants=[
                    x.Contestant(id="p1", name="Aria Vance", ability="Sword", rating="15", hero_points=1),
                    x.Contestant(id="o1", name="Orc", ability="Axe", rating="12"),
                    x.Contestant(id="o2", name="Orc", ability="Axe", rating="12"),
                    x.Contestant(id="g7", name="Grisk", ability="Club", rating="12"),
                ],
            ),
        ),
    )


def test_extended_says_names_and_tells_two_of_one_name_apart_by_their_ids() -> None:
    table = ambush()
    table.do(ANN, Declare(participant="p1", payload=x.Intent(action="lunge", bid=5, targets=["g7"])))
    sealed = shown(table.rules, table.contest, ANN)
    assert "declared Aria Vance; waiting for Orc (o1), Orc (o2), Grisk" in sealed
    assert "your sealed intent for Aria Vance: “lunge”, bid 5, at Grisk" in sealed
    for orc in ("o1", "o2"):
        table.do(GM, Declare(participant=orc, payload=x.Intent(action="chop", bid=3, targets=["p1"])))
    table.do(GM, Declare(participant="g7", payload=x.Intent(action="bash", bid=3, targets=["p1"])))
    table.do(GM, x.ProposeBid(contestant="p1", bid=4))
    text = shown(table.rules, table.contest, ANN)
    assert list(rows(text, "contestant")) == ["Aria Vance *", "Orc (o1)", "Orc (o2)", "Grisk"]
    assert "next: Aria Vance" in text.splitlines()[0]
    assert "  Aria Vance intends: “lunge”, bid 5, at Grisk" in text
    assert "  Orc (o2) intends: “chop”, bid 3, at Aria Vance" in text
    # the hint says what a person types: the name, quoted for its space
    assert 'the GM proposes bid 4 for Aria Vance (accept "Aria Vance")' in text
    assert not re.search(r"\b(p1|g7)\b", text), text


def scored_with_other_ids() -> Driver:
    return Driver(
        ruleset("scored"),
        CreateContest(
            ruleset="scored",
            title="The ogre's bridge",
            dice="physical",
            seats=[Seat("gm", "gm"), Seat("ann", "player", ["p1", "p2"])],
            setup=s.ScoredSetup(
                prize="the bridge",
                contestants=[
                    s.Contestant(id="p1", name="Aria Vance", side="heroes", ability="Sword", rating="15"),
                    s.Contestant(id="p2", name="Brin", side="heroes", rating="12", follower_of="p1", role="secondary"),
                    s.Contestant(id="x9", name="Ogre", side="opposition", ability="Club", rating="13"),
                ],
            ),
        ),
    )


def test_scored_says_names_in_the_pair_the_tactics_the_roll_and_the_result() -> None:
    table = scored_with_other_ids()
    table.do(GM, s.StartRound(initiative="x9", responder="p1"))
    assert "Ogre (initiative) against Aria Vance" in shown(table.rules, table.contest, ANN).splitlines()[0]
    table.do(ANN, Declare(participant="p1", payload=s.Tactic(action="feint", tactic="gambit")))
    table.do(GM, Declare(participant="x9", payload=s.Tactic(action="smash")))
    table.do(GM, s.Roll(faces=[13, 16]))
    text = shown(table.rules, table.contest, ANN)
    assert "  Aria Vance: gambit “feint”" in text
    assert "waiting for Aria Vance (spend_story_point or keep_story_points)" in text
    table.do(ANN, s.KeepStoryPoints(contestant="p1"))
    text = shown(table.rules, table.contest, SPECTATOR)
    assert "last: Ogre beats Aria Vance: Ogre lodges 5 RP against Aria Vance" in text
    assert list(rows(text, "contestant")) == ["Aria Vance", "Brin", "Ogre"]
    assert not re.search(r"\b(p1|p2|x9)\b", text), text
