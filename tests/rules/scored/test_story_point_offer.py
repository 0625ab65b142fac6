"""A story point is offered only when spending the ones a contestant holds could change what the contest does
(the RP it moves, whom it removes or brings back), as a hero point is in the other QuestWorlds rulesets."""

from __future__ import annotations

from protocol.events import Declare
from protocol.rulesets import scored as s
from tests.rules.scored.table import ANN, GM, Table, heroes


def _aria_wins_by_the_higher_die(story_points: int) -> Table:
    """Aria (15) and the Ogre (13) one success each, Aria's 5 beats its 3: degree 0, and the Ogre's defensive
    response takes the 1 RP off (and would take 2 off a degree 1 too)."""
    table = Table(heroes(story_points=story_points))
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic(tactic="none")))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic(tactic="defensive")))
    table.do(GM, s.Roll(faces=[5, 3]))
    return table


def test_no_story_point_when_one_more_success_lodges_nothing_more() -> None:
    table = _aria_wins_by_the_higher_die(story_points=1)
    assert table.rules.pending.may_spend == [] and table.rules.pending.waiting == ["aria"]
    assert table.refused(ANN, s.SpendStoryPoint(contestant="aria")) == "rules/no_story_point"
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    assert table.resolved().points == 0 and table.rules.members["aria"].story_points == 1


def test_story_points_are_offered_while_the_ones_held_could_still_change_it() -> None:
    table = _aria_wins_by_the_higher_die(story_points=2)
    assert table.rules.pending.may_spend == ["aria"]  # two more successes: degree 2, 1 RP past the response
    table.do(ANN, s.SpendStoryPoint(contestant="aria"))  # degree 1: still nothing lodged
    assert table.rules.pending.may_spend == ["aria"]
    table.do(ANN, s.SpendStoryPoint(contestant="aria"))
    table.do(ANN, s.KeepStoryPoints(contestant="aria"))
    assert (table.resolved().degree, table.resolved().points, table.rp("ogre")) == (2, 1, 1)
