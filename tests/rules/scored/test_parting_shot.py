"""Parting shots and the comeback rule (seed 003 §5.2.3)."""

from __future__ import annotations

from protocol.events import Declare
from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.engine.views import contest_view
from tests.rules.scored.table import ANN, BOB, GM, RULES, Table


def targets(table: Table) -> list[str]:
    """Who the players see as open to a parting shot."""
    return list(
        contest_view(RULES, table.contest, Viewer("ann", "player", frozenset({"aria"}))).rules.parting_shot_targets
    )


def beaten_ogre(before: int) -> Table:
    """The Ogre, with ``before`` RP against it, is taken out by Aria's degree 1 round (2 RP)."""
    table = Table()
    if before:
        table.adjust("ogre", before)
    table.round("aria", "ogre", [5, 16])
    assert table.out("ogre") == "tally" and table.rules.phase == "decided"
    assert table.rules.taken_out == {"ogre": 2}
    return table


def test_a_failed_parting_shot_revives_the_opponent_below_five() -> None:
    table = beaten_ogre(3)  # 3 + 2 = 5
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[12, 13]))  # the Ogre's big success:
    table.stand()
    resolved = table.resolved()  # degree 1 against Aria's one success: 2 RP it would score...
    assert (resolved.winner, resolved.degree, resolved.points) == ("ogre", 1, -2)  # ...come off its own
    assert table.rp("ogre") == 3 and table.out("ogre") is None
    assert table.rules.phase == "between" and table.rules.outcome is None
    assert table.events(s.SequenceResumed)
    table.round("ogre", "aria", [13, 16])  # and it may re-engage her
    assert table.rp("aria") == 3


def test_a_failed_parting_shot_that_leaves_five_or_more_does_not_revive() -> None:
    table = beaten_ogre(4)  # 4 + 2 = 6
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[5, 9]))  # the Ogre's degree 0: 1 RP off
    table.stand()
    assert table.rp("ogre") == 5 and table.out("ogre") == "tally"
    assert table.rules.phase == "decided"


def test_the_comeback_takes_back_at_most_what_the_last_round_lodged() -> None:
    table = beaten_ogre(4)  # 6: the last round lodged 2
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[20, 13]))  # degree 2 for the Ogre: 3
    table.stand()
    assert table.resolved().points == -2
    assert table.rp("ogre") == 4 and table.out("ogre") is None


def test_a_successful_parting_shot_worsens_the_defeat() -> None:
    table = beaten_ogre(3)
    outcome = table.rules.outcome
    assert [(o.contestant, o.degree) for o in outcome.outcomes if o.contestant == "ogre"] == [("ogre", 2)]  # 5 − 0
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[15, 16]))  # degree 2: 3 more RP
    table.stand()
    assert table.rp("ogre") == 8 and table.rules.phase == "decided"
    outcome = table.rules.outcome
    assert [(o.contestant, o.difference, o.degree) for o in outcome.outcomes if o.contestant == "ogre"] == [
        ("ogre", -8, 3)
    ]
    assert table.refused(ANN, s.PartingShot(shooter="aria", target="ogre", faces=[1, 2])) == "rules/shot_taken"


def test_an_unengaged_pc_may_shoot_an_opponent_taken_out_by_someone_else() -> None:
    table = beaten_ogre(3)
    table.do(GM, s.PartingShot(shooter="bors", target="ogre", faces=[9, 9]))  # a standoff: nothing
    table.stand()
    assert table.resolved().points == 0 and table.rp("ogre") == 5
    assert table.refused(BOB, s.PartingShot(shooter="bors", target="ogre", faces=[1, 2])) == "rules/shot_taken"


def test_a_supporter_takes_no_parting_shot_and_a_secondary_contestant_may() -> None:
    table = Table()
    table.round("gob", "aria", [9, 15])  # Gob (8) misses, Aria's big success: degree 2, 3 RP in one round
    assert table.out("gob") == "round" and table.rules.phase == "between"
    # Dina supports: she assists, she strikes no opponent, not even one already down
    for actor in (ANN, GM):
        shot = s.PartingShot(shooter="dina", target="gob", faces=[1, 20])
        assert table.refused(actor, shot) == "rules/supporter_does_not_engage"
    # Brin fights at Aria's side: he may take his shot, rolled for this contest only; a win worsens Gob's fall
    table.do(GM, s.PartingShot(shooter="brin", target="gob", faces=[5, 12]))  # Brin (12) hits, Gob (8) misses
    table.stand()
    assert (table.resolved().winner, table.resolved().points) == ("brin", 2) and table.rp("gob") == 5


def test_parting_shots_need_an_opponent_just_taken_out() -> None:
    table = Table()
    assert table.refused(ANN, s.PartingShot(shooter="aria", target="ogre", faces=[1, 2])) == "rules/not_taken_out"
    table.round("cato", "ogre", [12, 13])  # Cato out at 3 in one round
    assert table.refused(ANN, s.PartingShot(shooter="aria", target="cato", faces=[1, 2])) == "rules/same_side"
    # the Ogre may shoot the follower it took out; winning the comeback brings Cato back (3 − 2 < 3)
    table.do(GM, s.PartingShot(shooter="ogre", target="cato", faces=[16, 10]))  # Cato's big success: degree 2
    table.stand()
    assert table.resolved().points == -3 and table.out("cato") is None and table.rp("cato") == 0


def test_the_comeback_cap_counts_every_failed_shot_together() -> None:
    table = beaten_ogre(4)  # 6: the round that took it out lodged 2
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[5, 9]))  # the Ogre's degree 0: 1 RP back
    table.stand()
    assert table.rp("ogre") == 5 and table.out("ogre") == "tally"
    table.do(GM, s.PartingShot(shooter="bors", target="ogre", faces=[12, 13]))  # its degree 1 would take 2...
    table.stand()
    assert table.resolved().points == -1  # ...but only 1 of the round's 2 RP is left to win back
    assert table.rp("ogre") == 4 and table.out("ogre") is None  # 4 < 5: back in, 2 RP back in all


def test_the_chance_of_a_parting_shot_closes_when_the_next_round_starts() -> None:
    table = Table()
    table.round("ogre", "cato", [13, 16])  # the Ogre's big success: Cato out at 3 in one round
    assert table.out("cato") == "round"
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[20, 20]))  # still between rounds...
    table.stand()
    assert targets(table) == ["cato"]
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))  # ...until the next round starts
    assert targets(table) == []
    table.do(ANN, Declare(participant="aria", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    table.do(GM, s.Roll(faces=[20, 20]))  # a standoff
    table.stand()
    assert table.rules.phase == "between" and table.out("cato") == "round"
    shot = s.PartingShot(shooter="ogre", target="cato", faces=[16, 10])
    assert table.refused(GM, shot) == "rules/shot_too_late"


def test_after_the_decision_only_the_winners_take_parting_shots() -> None:
    table = Table()
    table.adjust("ogre", 4)
    table.round("ogre", "cato", [13, 16])  # Cato out at 3 in one round
    table.do(GM, s.Assist(helper="gob", beneficiary="ogre", faces=[20, 10]))  # the resistance's big success:
    table.stand()  # 3 more RP on the Ogre, out at 7: the heroes have won
    assert table.out("ogre") == "tally" and table.rules.phase == "decided"
    assert table.out("gob") is None  # Gob is still on his feet, but his side is beaten
    assert table.refused(GM, s.PartingShot(shooter="gob", target="cato", faces=[16, 10])) == "rules/beaten"
    table.do(GM, s.PartingShot(shooter="aria", target="ogre", faces=[3, 20]))  # the winners may still shoot
    table.stand()
    assert table.rp("ogre") == 9 and table.rules.phase == "decided"
