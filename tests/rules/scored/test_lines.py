"""The lines people read of a scored sequence (notices, the timeline, replays) name its contestants, followers
included, by the names their setup gave them, never by their ids: for every event, for the GM, a player and a
spectator, and in the results stored with ids before names were shown."""

from __future__ import annotations

import typing

import msgspec
import pytest

from protocol.common import Actor
from protocol.events import Declare
from protocol.rulesets import scored as s
from tests.engine.table import SPECTATOR
from tests.rules.lines import assert_named, kinds, lines
from tests.rules.scored.table import ANN, BOB, GM, RULES, Table, heroes

OGRE = "grisk-the-ogre"
NAMES = {
    "aria": "Sir Aria",
    "brin": "Brin Quickfoot",
    "cato": "Cato the Elder",
    "dina": "Dina of the Hills",
    "bors": "Bors the Bold",
    OGRE: "Grisk the Ogre",
    "gob": "Gob the Sneak",
}


def bridge(**setup: typing.Any) -> Table:
    """The ogre's bridge, each contestant named otherwise than its id, and the Ogre's id ``grisk-the-ogre``."""
    request = heroes(**setup)
    assert isinstance(request.setup, s.ScoredSetup)

    def renamed(ident: str) -> str:
        return OGRE if ident == "ogre" else ident

    contestants = [
        msgspec.structs.replace(
            c,
            id=renamed(c.id),
            name=NAMES[renamed(c.id)],
            follower_of=None if c.follower_of is None else renamed(c.follower_of),
        )
        for c in request.setup.contestants
    ]
    return Table(
        msgspec.structs.replace(request, setup=msgspec.structs.replace(request.setup, contestants=contestants))
    )


def a_sequence() -> Table:
    """A gambit and a story point, a shift to a follower, an assist, a follower engaged and removed, a late
    arrival, a follower out in one round, a correction, the victory and a parting shot that fails."""
    table = bridge(bors_joins_later=True, story_points=1)
    table.do(GM, s.StartRound(initiative="aria", responder=OGRE))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic(tactic="gambit", action="a leap")))
    table.do(GM, Declare(participant=OGRE, payload=s.Tactic()))
    table.do(GM, s.Roll(faces=[16, 5]))
    table.stand()
    table.do(ANN, s.SpendStoryPoint(contestant="aria"))
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    table.round(OGRE, "aria", [13, 16])  # the Ogre's big success: 3 RP on Sir Aria
    table.do(ANN, s.ShiftPoints(contestant="aria", follower="brin", points=1))
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[1, 11]))
    table.stand()
    table.do(GM, s.EngageFollower(opponent="gob", follower="dina", faces=[3, 12]))  # Dina misses: removed
    table.stand()
    table.do(BOB, s.Join(contestant="bors", comrade="aria"))
    table.round("cato", OGRE, [12, 13])  # 3 RP on Cato in one round: out
    table.do(GM, s.Adjust(contestant=OGRE, delta=2, reason="a fall from the bridge"))
    table.round("aria", OGRE, [5, 16])  # 2 more: the Ogre is out at 6
    assert table.rules.outcome is not None and table.rules.outcome.winner == "heroes"
    table.do(GM, s.PartingShot(shooter="aria", target=OGRE, faces=[12, 13]))  # it fails: the Ogre is back
    table.stand()
    assert table.rules.outcome is None and table.out(OGRE) is None
    return table


@pytest.mark.parametrize("viewer", [GM, ANN, BOB, SPECTATOR], ids=lambda a: a.principal)
def test_every_line_names_the_contestants_and_shows_no_id(viewer: Actor) -> None:
    table = a_sequence()
    assert RULES.names(table.rules) == NAMES
    told = lines(table, viewer)
    assert_named(told, NAMES)
    assert all(any(name in line.named for line in told) for name in NAMES.values())


def test_every_event_of_the_ruleset_is_among_the_lines_checked() -> None:
    tags = {str(t.__struct_config__.tag) for t in typing.get_args(s.Event)}
    told = kinds(lines(a_sequence()))
    assert tags <= told, tags - told


def test_the_lines_read_as_a_player_would_say_them() -> None:
    told = [line.named for line in lines(a_sequence())]
    expected = [
        "round 1: Sir Aria has the initiative against Grisk the Ogre",
        "round: Sir Aria (15) rolled 16: 0 success(es); Grisk the Ogre (13) rolled 5: 1 success(es)",
        "Sir Aria spends a story point: one more success",
        "round (degree 0): Sir Aria beats Grisk the Ogre: Sir Aria lodges 2 RP against Grisk the Ogre",
        "Sir Aria shifts 1 RP to their follower Brin Quickfoot",
        "assist for Sir Aria: Dina of the Hills (8) rolled 1: 1 success(es); the resistance (10) rolled 11: "
        "0 success(es)",
        "engagement (degree 1): Gob the Sneak beats Dina of the Hills: Dina of the Hills is removed",
        "Dina of the Hills is out of the sequence (an engagement they lost)",
        "Bors the Bold joins the sequence, sharing Sir Aria's tally",
        "Cato the Elder is out of the sequence (3 RP in one round)",
        "the GM adjusts the RP against Grisk the Ogre by +2: a fall from the bridge",
        "heroes wins the sequence over opposition: Sir Aria: victory of degree 2 (6–0); Bors the Bold: victory "
        "of degree 2 (6–0); Grisk the Ogre: defeat of degree 2 (0–6)",
        "Grisk the Ogre is back in the sequence",
    ]
    assert [line for line in expected if line not in told] == []


@pytest.mark.parametrize(
    ("stored", "read"),
    [
        (
            "aria beats grisk-the-ogre: aria lodges 2 RP against grisk-the-ogre",
            "Sir Aria beats Grisk the Ogre: Sir Aria lodges 2 RP against Grisk the Ogre",
        ),
        ("gob beats dina: dina is removed", "Gob the Sneak beats Dina of the Hills: Dina of the Hills is removed"),
        (
            "the resistance beats dina: the resistance lodges 3 RP against aria",
            "the resistance beats Dina of the Hills: the resistance lodges 3 RP against Sir Aria",
        ),
        ("standoff: nothing changes", "standoff: nothing changes"),
    ],
)
def test_a_result_stored_with_ids_reads_with_names(stored: str, read: str) -> None:
    """The resolved contests already in stored logs keep their bytes; their lines name the contestants."""
    event = s.ContestResolved("round", 2, "aria", OGRE, 1, [2, 1], OGRE, 2, stored)
    before = msgspec.json.encode(event)
    assert RULES.describe(event, NAMES) == f"round (degree 1): {read}"
    assert msgspec.json.encode(event) == before


def test_a_reason_the_gm_typed_is_never_renamed() -> None:
    event = s.PointsAdjusted(contestant="aria", delta=-1, reason="aria ducks under gob")
    assert RULES.describe(event, NAMES) == "the GM adjusts the RP against Sir Aria by -1: aria ducks under gob"
