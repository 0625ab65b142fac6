"""The lines people read for a Karbon scene name the agent by its name (and the player by the seat's), never by an
id, and dice by their kind and face: a scene whose ids are no names, played to an aftermath, line by line."""

from __future__ import annotations

import re
from typing import Any

import msgspec

from protocol.common import Actor, Dice, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import karbon as k
from server.engine.names import NO_NAMES
from server.rules.karbon.describe import describe as karbon_line
from server.rules.karbon.describe import names
from tests.rules.karbon.table import GM, SPECTATOR, Table
from tests.rules.lines import lines as shared_lines

ANN = Actor("s-ann", "player")
DIE = re.compile(r"(?<![\w-])[dr]\d+-\d+(?![\w-])")  # a die's id: d6-4, r6-1
FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
NARRATOR = ["d8-1", "d8-2", "d10-1"]
LATER = ["d6-7", "d8-3", "d8-4", "d8-5", "d10-2"]


def _scene() -> Table:
    return Table(
        request=CreateContest(
            ruleset="karbon",
            title="The docks at night",
            dice="physical",
            contest="docks",
            seats=[Seat("gm", "gm"), Seat("s-ann", "player", ["c-vera"], name="Ann")],
            setup=k.KarbonSetup(agent="c-vera", name="Vera Kade"),
        )
    )


def _risk(table: Table, all_in: bool = False, move: str = "") -> None:
    table.do(ANN, Declare(participant="c-vera", payload=k.Risk(all_in=all_in, move=move)))


def played() -> Table:
    """A break, a glitch and an unclear end; a sudden death lost at zero Fortune, and its Blackout."""
    table = _scene()
    table.do(GM, k.StartContest(goal="slip past", ability="Stealth", level=5, challenge=3, consequence=2, peril=1))
    table.do(GM, k.DrawHands(agent=FIVE, narrator=NARRATOR))
    _risk(table, all_in=True, move="vault the crates")
    faces = {**dict.fromkeys(FIVE, 2), "d8-1": 4, "d8-2": 4, "d10-1": 7}
    table.do(GM, k.Roll(faces=faces, risk=[1, 5, 5], peril=[2], drawn=["d6-6"]))
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    table.do(GM, k.ChangePeril(peril=2, reason="the alarm"))
    _risk(table)
    table.do(GM, k.Roll(faces={**dict.fromkeys(table.hand("agent"), 5), "d8-1": 1, "d8-2": 1}, peril=[1, 1]))
    table.do(GM, k.Stack(side="narrator", chips=2))
    table.do(ANN, k.ChooseGlitch(choice="hurt"))
    table.do(GM, k.NarratorOption(option="injury", label="a cracked rib"))
    table.do(ANN, k.SuddenDeath())
    table.do(GM, k.DrawHands(agent=LATER, narrator=["d10-3"]))
    _risk(table)
    table.do(GM, k.Roll(faces={**dict.fromkeys(LATER, 5), "d10-3": 1}, peril=[1, 1]))
    table.do(GM, k.Adjust(target="narrator_hand", delta=2, reason="a second guard"))
    table.do(GM, k.Stack(side="narrator", chips=3))
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    table.do(GM, k.NarratorOption(option="peril"))
    table.do(ANN, k.ChooseAftermath(aftermath="blackout"))
    table.do(GM, k.Adjust(target="fortune", delta=1, reason="a lucky charm"))
    return table


def lines(table: Table, actor: Actor = GM) -> list[tuple[Any, str, str]]:
    """Each event ``actor`` is told of, with its line as people read it and as it reads with no names."""
    return [(line.event, line.named, line.bare) for line in shared_lines(table, actor)]


def _shown(text: str, ids: dict[str, str]) -> list[str]:
    """The ids (of those whose name differs) ``text`` shows as whole words, and every die id."""
    found = [i for i, name in ids.items() if i != name and re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]
    return found + DIE.findall(text)


def test_the_agent_is_named_for_its_id_and_its_side() -> None:
    state = _scene().rules
    assert names(state) == {"c-vera": "Vera Kade", "agent": "Vera Kade"}
    assert names(msgspec.structs.replace(state, name=" ")) == NO_NAMES


def test_every_line_names_the_agent_and_the_player_and_shows_no_id() -> None:
    table = played()
    ids = {**names(table.rules), "s-ann": "Ann"}
    for actor in (GM, ANN, SPECTATOR):
        told = lines(table, actor)
        assert len(told) == len(table.log)
        for event, named, bare in told:
            assert _shown(named, ids) == [], (event, named)
            for ident in _shown(bare, ids):
                if not DIE.fullmatch(ident):
                    assert ids[ident] in named, (event, named)


def test_what_the_lines_say() -> None:
    said = [named for _, named, _ in lines(played())]
    assert "hands drawn: Vera Kade takes 5 d6; the narrator takes 2 d8 and a d10" in said
    assert "Vera Kade declared, sealed: all on the line: “vault the crates”" in said
    assert (
        "round 1: Vera Kade d6 showing 2, d6 showing 2, d6 showing 2, d6 showing 2, d6 showing 2 (5 hits), "
        "the narrator d8 showing 4, d8 showing 4, d10 showing 7 (0 hits): Vera Kade wins; "
        "the narrator offers an opening; risk 1 5 5; peril 2"
    ) in said
    assert "a d10 to Vera Kade's hand (an opening)" in said
    assert "Vera Kade puts 5 chip(s) on the stack (the test)" in said
    assert "Vera Kade's stack reaches five: a break, marking a win (X)" in said
    assert "the narrator's stack reaches five: a glitch, marking a loss (O)" in said
    assert "Vera Kade stacks no more this test" in said
    assert "6 d6, a d10 and 2 d8 to the spent dice (the contest is over)" in said
    assert "Vera Kade suffers a Blackout" in said
    assert "the GM adjusts Vera Kade's Fortune by +1: a lucky charm" in said


def test_with_no_names_a_line_says_the_agent() -> None:
    rolled = k.RoundRolled(
        round=1,
        roll=Dice(source="physical", sides=[6, 10], faces=[2, 9], key=0, first=0),
        agent=[k.RolledDie(die="d6-1", sides=6, face=2, result="hit")],
        narrator=[k.RolledDie(die="d10-1", sides=10, face=9, result="turncoat")],
        agent_hits=1,
        agent_turncoats=0,
        narrator_hits=0,
        narrator_turncoats=1,
        winner="agent",
        opening="narrator",
        all_in=False,
        risk=[],
        peril=[],
    )
    assert karbon_line(rolled) == (
        "round 1: the agent d6 showing 2 (1 hits), the narrator d10 showing 9 (0 hits): "
        "the agent wins; the narrator offers an opening"
    )
    assert karbon_line(k.AftermathChosen(aftermath="madness")) == "the agent suffers a Moment of Madness"
