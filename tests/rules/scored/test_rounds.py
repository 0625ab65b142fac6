"""Rounds of a scored sequence played through the engine: RP by degree, the sealed tactics in every
combination, defeat at 5, story points, the initiative call and public tallies."""

from __future__ import annotations

import msgspec
import pytest

from protocol.events import Declare
from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.engine.views import contest_view
from tests.rules.scored.table import ANN, BOB, GM, RULES, Table, heroes


@pytest.mark.parametrize(
    ("faces", "aria", "winner", "degree", "points"),
    [
        ([5, 9], "15", "ogre", 0, 1),  # one success each: the higher die wins with degree 0
        ([5, 16], "15", "aria", 1, 2),  # one success against none
        ([15, 16], "15", "aria", 2, 3),  # a big success (2) against none
        ([15, 16], "15W", "aria", 3, 4),  # and a mastery
        ([15, 16], "15W2", "aria", 4, 5),  # and two: five RP, the Ogre is beaten at once
    ],
)
def test_a_round_lodges_one_more_rp_than_its_degree(
    faces: list[int], aria: str, winner: str, degree: int, points: int
) -> None:
    table = Table(heroes(aria=aria))
    resolved = table.round("aria", "ogre", faces)
    assert resolved is not None
    assert (resolved.winner, resolved.degree, resolved.points) == (winner, degree, points)
    loser = "ogre" if winner == "aria" else "aria"
    assert table.rp(loser) == points and table.rp(winner) == 0
    assert (table.rules.phase == "decided") == (points >= 5)


# Tactics table: Aria has the initiative (15 against the Ogre's 15). "win": Aria 15 (big success, 2) against
# the Ogre's 10 (1): degree 1, base 2 RP. "lose": the mirror. "standoff": both roll 10.
WIN, LOSE, STANDOFF = [15, 10], [10, 15], [10, 10]

# RP the round's winner lodges, by (Aria's tactic, the Ogre's tactic), read off §5.2.4 and §5.2.5.
# The winner's tactic first, then the loser's: gambit +1 / two gambits +2 / losing gambit +2;
# defensive winner −1, defensive loser −2; never below 0.
TACTICS_TABLE = [
    # aria, ogre, when Aria wins, when Aria loses
    ("none", "none", 2, 2),
    ("gambit", "none", 3, 4),  # Aria's gambit: +1 when she wins, the Ogre +2 when she loses
    ("none", "gambit", 4, 3),
    ("gambit", "gambit", 4, 4),  # both gamble: the winner lodges 2 more
    ("defensive", "none", 1, 0),  # defending: −1 when winning, 2 fewer against her when losing
    ("none", "defensive", 0, 1),
    ("defensive", "defensive", 0, 0),  # 2 − 1 − 2: never below 0
    ("gambit", "defensive", 1, 3),  # wins: 2 + 1 − 2; loses: the defensive Ogre 2 − 1, + 2 for her gambit
    ("defensive", "gambit", 3, 1),  # wins: 2 − 1 + 2; loses: the gambling Ogre 2 + 1, − 2 for her defence
]


@pytest.mark.parametrize(("aria", "ogre", "when_winning", "when_losing"), TACTICS_TABLE)
@pytest.mark.parametrize("result", ["win", "lose", "standoff"])
def test_gambit_and_defensive_response_in_every_combination(
    aria: str, ogre: str, when_winning: int, when_losing: int, result: str
) -> None:
    table = Table(heroes(aria="15", ogre="15"))
    faces = {"win": WIN, "lose": LOSE, "standoff": STANDOFF}[result]
    resolved = table.round("aria", "ogre", faces, (aria, ogre))
    assert resolved is not None
    if result == "standoff":
        assert (resolved.winner, resolved.points) == (None, 0)
        assert table.rp("aria") == table.rp("ogre") == 0
    elif result == "win":
        assert (resolved.winner, resolved.degree, resolved.points) == ("aria", 1, when_winning)
        assert (table.rp("aria"), table.rp("ogre")) == (0, when_winning)
    else:
        assert (resolved.winner, resolved.degree, resolved.points) == ("ogre", 1, when_losing)
        assert (table.rp("aria"), table.rp("ogre")) == (when_losing, 0)


def test_tactics_stay_sealed_until_both_sides_have_chosen() -> None:
    table = Table()
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    assert table.rules.phase == "declaring"
    table.do(ANN, Declare(participant="aria", payload=s.Tactic(tactic="gambit", action="leap from the rail")))
    for viewer in (Viewer("bob", "player", frozenset({"bors"})), Viewer("spectator", "spectator")):
        shown = contest_view(RULES, table.contest, viewer)
        assert shown.seal is not None
        assert [(d.participant, d.payload) for d in shown.seal.declared] == [("aria", None)]
        assert shown.rules.tactics == {}
    gm_view = contest_view(RULES, table.contest, Viewer("gm", "gm"))
    assert gm_view.seal is not None and gm_view.seal.declared[0].payload == s.Tactic("gambit", "leap from the rail")
    table.do(GM, Declare(participant="ogre", payload=s.Tactic(tactic="defensive")))
    shown = contest_view(RULES, table.contest, Viewer("spectator", "spectator"))
    assert table.rules.phase == "ready"
    assert {c: t.tactic for c, t in shown.rules.tactics.items()} == {"aria": "gambit", "ogre": "defensive"}


def test_the_gm_calls_the_initiative_and_the_window_expects_both_contestants() -> None:
    table = Table()
    table.do(GM, s.StartRound(initiative="ogre", responder="aria"))
    shown = contest_view(RULES, table.contest, Viewer("ann", "player", frozenset({"aria"})))
    assert (shown.rules.initiative, shown.rules.responder) == ("ogre", "aria")
    assert shown.seal is not None and shown.seal.expected == ["ogre", "aria"]
    assert table.refused(ANN, s.StartRound(initiative="aria", responder="ogre")) == "auth/forbidden"


def test_the_gm_may_close_the_window_and_a_missing_tactic_is_none() -> None:
    from protocol.events import CloseDeclarations

    table = Table()
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic(tactic="gambit")))
    table.do(GM, CloseDeclarations())
    table.do(GM, s.Roll(faces=[15, 10]))  # Aria wins degree 1 against a gamble: 2 + 2
    table.stand()
    assert table.rp("ogre") == 4


def test_tallies_are_public_and_the_score_reads_as_the_seed_says() -> None:
    table = Table()
    table.round("aria", "ogre", [15, 16])  # degree 2: 3 RP
    table.round("aria", "ogre", [3, 13])  # the Ogre's big success (2) against one: 2 RP against Aria
    spectator = contest_view(RULES, table.contest, Viewer("spectator", "spectator")).rules
    assert {c.id: c.rp for c in spectator.contestants if c.role == "main"} == {"aria": 2, "bors": 0, "ogre": 3}
    assert spectator.score["aria"] == "leading 3–2"
    assert spectator.score["ogre"] == "behind 2–3"
    assert [p.tallies["ogre"] for p in spectator.chart] == [3, 3]
    assert [p.tallies["aria"] for p in spectator.chart] == [0, 2]
    assert all(c.story_points is None for c in spectator.contestants)


def test_five_rp_lose_the_sequence_and_the_outcome_reads_the_difference() -> None:
    table = Table()
    table.round("ogre", "aria", [12, 2])  # the Ogre 1 success vs Aria 1: the Ogre's higher die, 1 RP on Aria
    table.round("aria", "ogre", [15, 16])  # 3 RP on the Ogre
    table.round("aria", "ogre", [15, 16])  # 3 more: 6, the Ogre is out
    assert table.out("ogre") == "tally"
    decided = table.rules.outcome
    assert decided is not None and (decided.winner, decided.loser) == ("heroes", "opposition")
    results = {o.contestant: (o.victory, o.rp_for, o.rp_against, o.degree) for o in decided.outcomes}
    assert results["aria"] == (True, 6, 1, 2)  # difference 6 − 1 = 5: degree 2
    assert results["ogre"] == (False, 1, 6, 2)
    assert results["bors"] == (True, 6, 0, 2)  # Bors met nobody: measured against the Ogre, 6 − 0
    # acting after defeat is refused, and so is a new round once the sequence is decided
    assert table.refused(GM, s.Assist(helper="gob", beneficiary="ogre", faces=[1, 1])) == "rules/out_of_contest"
    assert table.refused(GM, s.StartRound(initiative="aria", responder="gob")) == "rules/out_of_phase"


def test_story_points_add_successes_after_the_dice() -> None:
    table = Table(heroes(story_points=2))
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    table.do(GM, s.Roll(faces=[16, 5]))  # Aria misses, the Ogre hits: she would lose degree 1
    table.stand()
    assert table.rules.phase == "rolled" and table.rules.pending.waiting == ["aria"]
    assert table.refused(BOB, s.SpendStoryPoint(contestant="aria")) == "auth/not_your_seat"
    table.do(ANN, s.SpendStoryPoint(contestant="aria"))  # 1 – 1: the Ogre's higher die... 16 > 5: Aria
    assert table.rules.phase == "rolled"  # she still has one
    table.do(ANN, s.SpendStoryPoint(contestant="aria"))  # 2 – 1: Aria wins degree 1, and has none left
    # she still answers, as anyone would: resolving now would tell the table she has run out
    assert table.rules.phase == "rolled" and table.rules.pending.may_spend == []
    assert table.refused(ANN, s.SpendStoryPoint(contestant="aria")) == "rules/no_story_point"
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    resolved = table.resolved()
    assert (resolved.winner, resolved.successes, resolved.points) == ("aria", [2, 1], 2)
    assert table.rules.members["aria"].story_points == 0
    assert table.refused(ANN, s.SpendStoryPoint(contestant="aria")) == "rules/no_story_point"


def test_a_player_keeps_story_points_and_the_round_resolves() -> None:
    table = Table(heroes(story_points=1))
    table.round("aria", "ogre", [16, 5])
    assert table.rules.phase == "rolled"
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    assert (table.resolved().winner, table.rp("aria")) == ("ogre", 2)
    assert table.rules.members["aria"].story_points == 1


def test_server_dice_are_rolled_by_the_server_and_typed_faces_refused() -> None:
    request = heroes()
    table = Table(msgspec.structs.replace(request, dice="server"))
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    assert table.refused(GM, s.Roll(faces=[15, 16])) == "dice/wrong_mode"
    table.do(ANN, s.Roll())
    table.stand()
    rolled = table.events(s.ContestRolled)[-1]
    assert rolled.dice.source == "server" and rolled.dice.faces == [rolled.first.face, rolled.second.face]
    assert table.rules.phase == "between" and table.events(s.ContestResolved)
