"""What a client writer reads in docs/rules/scored.md, checked: physical faces go to the initiative, then the
responder (an assist: the helper, then the resistance); an outcome's ``difference`` is the RP against its
opponent minus the RP against itself."""

from __future__ import annotations

from protocol.rulesets import scored as s
from tests.rules.scored.table import GM, Table


def test_a_rounds_faces_go_to_the_initiative_then_the_responder() -> None:
    table = Table()
    table.round("aria", "ogre", [15, 2])  # Aria (15) big success, the Ogre (13) one success: degree 1
    rolled = table.events(s.ContestRolled)[-1]
    assert (rolled.first.contestant, rolled.first.face, rolled.second.contestant, rolled.second.face) == (
        "aria",
        15,
        "ogre",
        2,
    )
    assert (table.rp("ogre"), table.rp("aria")) == (2, 0)
    table.round("ogre", "aria", [15, 2])  # now the Ogre's face is 15: a miss against Aria's success
    assert (table.rp("ogre"), table.rp("aria")) == (2 + 2, 0)


def test_an_assists_faces_go_to_the_helper_then_the_resistance() -> None:
    table = Table()
    table.adjust("cato", 3)
    table.do(GM, s.Assist(helper="dina", beneficiary="cato", faces=[8, 11]))  # Dina's big success, resistance misses
    rolled = table.events(s.ContestRolled)[-1]
    assert (rolled.first.contestant, rolled.first.face, rolled.second.contestant) == ("dina", 8, None)
    table.stand()  # Ann lets Dina's result stand
    assert table.rp("cato") == 0  # degree 2: 3 RP removed


def test_the_difference_is_positive_for_the_side_ahead() -> None:
    table = Table()
    table.round("aria", "ogre", [15, 20])  # big success against a miss: 3 RP on the Ogre
    table.round("aria", "ogre", [15, 20])  # 3 more: 6, the Ogre is out
    decided = table.rules.outcome
    assert decided is not None
    differences = {o.contestant: (o.rp_for, o.rp_against, o.difference, o.victory) for o in decided.outcomes}
    assert differences["aria"] == (6, 0, 6, True)
    assert differences["ogre"] == (0, 6, -6, False)
