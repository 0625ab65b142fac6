"""Assists (seed 003 §5.2.6): +5 resistance per earlier assist to the same beneficiary, whoever assists."""

from __future__ import annotations

import pytest

from protocol.rulesets import scored as s
from tests.rules.scored.table import ANN, BOB, GM, Table, heroes


def test_four_assists_by_two_pcs_escalate_the_resistance_by_five_each() -> None:
    table = Table(heroes(players_type_faces=True))
    table.adjust("cato", 4)  # Cato, Aria's follower fighting as a contestant, is in trouble
    steps = [
        # helper, faces (helper's, the resistance's), resistance faced, RP change, Cato's tally after
        (ANN, "aria", [3, 12], "10", -2, 2),  # Aria 1 success, resistance 10 none: degree 1, 2 RP off
        (BOB, "bors", [17, 18], "15", 1, 3),  # both miss: the resistance's higher die wins, degree 0, 1 RP on
        (ANN, "aria", [15, 19], "20", -2, 1),  # Aria's big success (2) against 1 (19 at 20)
        (BOB, "bors", [14, 9], "5W", -1, 0),  # Bors' big success (2) against 5W's mastery (1): degree 1,
        # 2 RP off, but the tally never goes below 0
    ]
    for actor, helper, faces, resistance, change, after in steps:
        before = table.rp("cato")
        table.do(actor, s.Assist(helper=helper, beneficiary="cato", faces=faces))
        table.stand()
        rolled = table.events(s.ContestRolled)[-1]
        assert (rolled.kind, rolled.first.contestant, rolled.second.rating) == ("assist", helper, resistance)
        assert table.rp("cato") - before == change, (helper, faces)
        assert table.rp("cato") == after
    assert table.rules.assists == {"cato": 4}


def test_the_escalation_counts_per_beneficiary() -> None:
    table = Table()
    table.adjust("aria", 2)
    table.adjust("cato", 2)
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[20, 20]))  # a standoff still counts
    table.stand()
    table.do(GM, s.Assist(helper="dina", beneficiary="cato", faces=[1, 20]))
    table.stand()
    rolled = table.events(s.ContestRolled)
    assert [r.second.rating for r in rolled] == ["10", "10"]  # Cato's first assist faces the base again
    assert table.rp("aria") == 2  # the standoff changed nothing
    assert table.rules.assists == {"aria": 1, "cato": 1}


def test_a_lost_assist_adds_one_more_than_the_resistance_degree() -> None:
    table = Table()
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[20, 10]))  # the resistance's big success
    table.stand()
    assert table.rp("aria") == 3  # degree 2 against a miss: 3 RP on Aria


def test_the_base_resistance_is_a_setting() -> None:
    request = heroes()
    assert isinstance(request.setup, s.ScoredSetup)
    setup = s.ScoredSetup(prize="x", contestants=request.setup.contestants, assist_resistance="14")
    table = Table(type(request)(ruleset="scored", setup=setup, seats=request.seats, dice="physical"))
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[1, 1]))
    table.stand()
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[1, 1]))
    table.stand()
    assert [r.second.rating for r in table.events(s.ContestRolled)] == ["14", "19"]


@pytest.mark.parametrize(
    ("actor", "command", "code"),
    [
        (ANN, s.Assist(helper="aria", beneficiary="aria", faces=[1, 2]), "rules/assist_self"),
        (GM, s.Assist(helper="ogre", beneficiary="ogre", faces=[1, 2]), "rules/assist_self"),
        (GM, s.Assist(helper="gob", beneficiary="aria", faces=[1, 2]), "rules/not_a_teammate"),
        (BOB, s.Assist(helper="aria", beneficiary="bors", faces=[1, 2]), "auth/not_your_seat"),
        (ANN, s.Assist(helper="aria", beneficiary="bors", faces=[1, 2]), "dice/typed_by_gm"),
        (GM, s.Assist(helper="aria", beneficiary="nobody", faces=[1, 2]), "rules/no_such_contestant"),
        (GM, s.Assist(helper="aria", beneficiary="bors", faces=[1, 21]), "dice/bad_face"),
        (GM, s.Assist(helper="aria", beneficiary="bors"), "dice/wrong_mode"),
    ],
)
def test_illegal_assists_are_refused_and_change_nothing(actor: object, command: s.Assist, code: str) -> None:
    table = Table()
    assert table.refused(actor, command) == code  # type: ignore[arg-type]
