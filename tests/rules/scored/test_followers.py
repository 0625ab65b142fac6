"""Followers in their three roles (seed 003 §5.2.1.3), and removing one by engaging it."""

from __future__ import annotations

from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.engine.views import contest_view
from tests.rules.scored.table import ANN, BOB, GM, RULES, Table, heroes


def test_a_follower_contestant_is_out_at_three_rp_in_one_round() -> None:
    table = Table()
    table.round("cato", "ogre", [12, 13])  # Cato (10) misses, the Ogre's big success: degree 2, 3 RP
    assert table.rp("cato") == 3 and table.out("cato") == "round"
    assert table.rp("aria") == 0 and table.out("aria") is None  # his leader is untouched
    assert table.rules.phase == "between"  # Aria is still in: the sequence goes on


def test_a_follower_contestant_survives_three_rp_spread_over_rounds() -> None:
    table = Table()
    table.round("cato", "ogre", [12, 5])  # degree 1: 2 RP
    table.round("cato", "ogre", [3, 9])  # one success each, the Ogre's higher die: degree 0, 1 RP
    assert table.rp("cato") == 3 and table.out("cato") is None
    table.round("cato", "ogre", [3, 9])
    table.round("cato", "ogre", [3, 9])
    assert table.rp("cato") == 5 and table.out("cato") == "tally"


def test_rp_shifted_to_a_secondary_contestant_leave_the_leader_and_remove_it_at_three() -> None:
    table = Table()
    table.round("aria", "ogre", [16, 13])  # the Ogre's big success against a miss: 3 RP on Aria
    table.round("aria", "ogre", [16, 5])  # 2 more: 5 would beat her...
    assert table.out("aria") == "tally"
    table = Table()
    table.round("aria", "ogre", [16, 13])
    table.do(ANN, s.ShiftPoints(contestant="aria", follower="brin", points=2))
    assert (table.rp("aria"), table.rp("brin")) == (1, 2)
    table.round("aria", "ogre", [16, 5])  # 2 RP: 3, not 5
    assert table.out("aria") is None
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    # at any point: here with the round's tactics still open
    table.do(ANN, s.ShiftPoints(contestant="aria", follower="brin", points=1))
    assert (table.rp("aria"), table.rp("brin")) == (2, 3)
    assert table.out("brin") == "tally"
    assert table.refused(ANN, s.ShiftPoints(contestant="aria", follower="brin", points=1)) == "rules/out_of_contest"


def test_shifting_is_refused_to_anyone_but_ones_own_secondary_contestant() -> None:
    table = Table()
    table.adjust("aria", 2)
    assert table.refused(ANN, s.ShiftPoints("aria", "cato", 1)) == "rules/not_secondary"  # a contestant
    assert table.refused(ANN, s.ShiftPoints("aria", "dina", 1)) == "rules/not_secondary"  # a supporter
    assert table.refused(ANN, s.ShiftPoints("aria", "bors", 1)) == "rules/not_secondary"  # a PC
    assert table.refused(GM, s.ShiftPoints("ogre", "gob", 1)) == "rules/not_secondary"
    assert table.refused(ANN, s.ShiftPoints("aria", "brin", 3)) == "rules/bad_points"  # she has 2
    assert table.refused(ANN, s.ShiftPoints("aria", "brin", 0)) == "rules/bad_points"
    assert table.refused(BOB, s.ShiftPoints("aria", "brin", 1)) == "auth/not_your_seat"


def test_secondary_contestants_and_supporters_roll_no_rounds() -> None:
    table = Table()
    assert table.refused(GM, s.StartRound(initiative="brin", responder="ogre")) == "rules/not_in_rounds"
    assert table.refused(GM, s.StartRound(initiative="ogre", responder="dina")) == "rules/not_in_rounds"
    assert table.refused(GM, s.StartRound(initiative="aria", responder="bors")) == "rules/same_side"


def test_an_unengaged_opponent_removes_a_follower_on_any_failure() -> None:
    table = Table()
    table.do(GM, s.EngageFollower(opponent="ogre", follower="dina", faces=[13, 4]))  # 2 successes against 1
    table.stand()
    assert table.out("dina") == "engaged"
    assert table.resolved().result == "ogre beats dina: dina is removed"
    table.do(GM, s.EngageFollower(opponent="gob", follower="brin", faces=[9, 3]))  # Brin wins: stays
    table.stand()
    assert table.out("brin") is None
    table.do(GM, s.EngageFollower(opponent="gob", follower="cato", faces=[7, 7]))  # a standoff: stays
    table.stand()
    assert table.out("cato") is None


def test_only_an_otherwise_unengaged_opponent_removes_a_follower() -> None:
    """§5.2.1.3: followers "may be removed from the contest by otherwise unengaged opponents". One that has
    met in a round an opponent still in the sequence is engaged with it."""
    table = Table()
    table.round("ogre", "aria", [3, 9])  # one success each, Aria's higher die: 1 RP on the Ogre
    engaged = [
        table.refused(GM, s.EngageFollower(opponent="ogre", follower="brin", faces=[13, 4])),
        table.refused(ANN, s.EngageFollower(opponent="aria", follower="gob", faces=[3, 12])),
    ]
    assert engaged == ["rules/otherwise_engaged"] * 2  # the GM is refused too; nothing changed
    shown = contest_view(RULES, table.contest, Viewer("spectator", "spectator")).rules
    assert {c.id: c.engaged_with for c in shown.contestants if c.engaged_with} == {"ogre": ["aria"], "aria": ["ogre"]}
    # Gob has met nobody: it may remove Brin (its big success against Brin's miss)
    table.do(GM, s.EngageFollower(opponent="gob", follower="brin", faces=[8, 13]))
    table.stand()
    assert table.out("brin") == "engaged"
    # Cato meets Gob in a round: from then on neither removes a follower, while the other is in
    table.round("cato", "gob", [20, 20])  # a standoff, but they have met
    assert table.refused(GM, s.EngageFollower(opponent="gob", follower="dina", faces=[8, 13])) == (
        "rules/otherwise_engaged"
    )
    table.adjust("aria", 5)  # Aria falls: the Ogre has met nobody still in, and is free again
    assert table.rules.members["ogre"].out is None and table.rules.outcome is None
    table.do(GM, s.EngageFollower(opponent="ogre", follower="dina", faces=[13, 4]))
    table.stand()
    assert table.out("dina") == "engaged"


def test_a_pc_engages_an_opposing_follower() -> None:
    table = Table()
    table.do(GM, s.EngageFollower(opponent="aria", follower="gob", faces=[3, 12]))
    table.stand()
    assert table.out("gob") == "engaged"
    codes = [
        table.refused(GM, s.EngageFollower(opponent="aria", follower="ogre", faces=[3, 12])),
        table.refused(GM, s.EngageFollower(opponent="ogre", follower="brin", faces=[1, 1, 1])),
        table.refused(ANN, s.EngageFollower(opponent="aria", follower="gob", faces=[3, 12])),
    ]
    assert codes == ["rules/not_a_follower", "dice/bad_face", "rules/out_of_contest"]


def test_the_gm_sets_the_resistance_the_follower_faces() -> None:
    table = Table()
    # the Ogre, for this engagement a resistance of 1: Cato rolls his own 10 against it
    table.do(GM, s.EngageFollower(opponent="ogre", follower="cato", ability="Grab", rating="1", faces=[2, 12]))
    table.stand()
    rolled = table.events(s.ContestRolled)[-1]
    assert (rolled.first.rating, rolled.second.rating) == ("1", "10")
    assert table.out("cato") is None  # neither succeeds and Cato's die is higher: he stays
    table.do(GM, s.EngageFollower(opponent="ogre", follower="dina", ability="Roar", rating="18", faces=[17, 9]))
    table.stand()
    assert table.out("dina") == "engaged"  # 18 against Dina's 8: one success to none


def test_a_pc_names_the_ability_of_its_follower_engaging_another() -> None:
    table = Table(heroes(players_type_faces=True))
    codes = [
        table.refused(ANN, s.EngageFollower(opponent="cato", follower="gob", ability="Sling", faces=[1, 2])),
        table.refused(ANN, s.EngageFollower(opponent="ogre", follower="cato", ability="Club", rating="5")),
    ]
    assert codes == ["rules/bad_tactic", "auth/not_your_seat"]  # an ability needs its rating; not hers to name
    # Ann names the ability Cato engages Gob with: Sling 14 instead of his 10
    table.do(ANN, s.EngageFollower(opponent="cato", follower="gob", ability="Sling", rating="14", faces=[14, 3]))
    table.stand()
    rolled = table.events(s.ContestRolled)[-1]
    assert (rolled.first.contestant, rolled.first.rating, rolled.second.rating) == ("cato", "14", "8")
    assert table.out("gob") == "engaged"  # Cato's big success (2) against Gob's one


def test_a_supporter_engages_no_opponent_but_may_be_engaged() -> None:
    """§5.2.1.3: a supporter "does not directly engage your opponents"; it assists. A secondary contestant,
    which contributes directly to the effort, may engage an opposing follower."""
    table = Table(heroes(players_type_faces=True))
    engage = s.EngageFollower(opponent="dina", follower="gob", faces=[1, 20])
    assert table.refused(ANN, engage) == "rules/supporter_does_not_engage"
    assert table.refused(GM, engage) == "rules/supporter_does_not_engage"  # not for the GM either
    assert table.refused(BOB, engage) == "auth/not_your_seat"  # not Bob's to send at all
    assert table.out("gob") is None
    table.do(ANN, s.EngageFollower(opponent="brin", follower="gob", faces=[12, 3]))  # Brin's big success: 2 to 1
    table.stand()
    assert table.out("gob") == "engaged"
    table.do(GM, s.EngageFollower(opponent="ogre", follower="dina", faces=[13, 4]))  # the supporter is engaged
    table.stand()
    assert table.out("dina") == "engaged"
