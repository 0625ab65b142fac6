"""Seed 000 tables 5.3.5.1 (final action), 5.3.10.1 (failed disengagement), 5.3.11.1 (AP lending) and
5.3.12.1 (AP gifting), cell by cell. Fractions round up (RULES.md §1)."""

from __future__ import annotations

import pytest

from server.rules.extended.actions import Disengagement, Gifting, Loan, disengage, final_action_ap, gift, loan
from server.rules.questworlds.outcome import Degree, Result, SimpleContestResult

V, D, T = Result.VICTORY, Result.DEFEAT, Result.TIE
MARGINAL, MINOR, MAJOR, COMPLETE = Degree.MARGINAL, Degree.MINOR, Degree.MAJOR, Degree.COMPLETE
TIE = SimpleContestResult(T, None)


def r(result: Result, degree: Degree) -> SimpleContestResult:
    return SimpleContestResult(result, degree)


# Table 5.3.5.1, for a starting total of 40 (exact fractions) and of 25 (fractions rounded up), from -6 AP.
# cell text, result, new AP from 40 starting, new AP from 25 starting
FINAL_ACTION = [
    ("Marginal Victory: rejoin contest with 1/8 of your starting APs", r(V, MARGINAL), 5, 4),
    ("Minor Victory: rejoin contest with 1/4 of your starting APs", r(V, MINOR), 10, 7),
    ("Major Victory: rejoin contest with 1/2 of your starting APs", r(V, MAJOR), 20, 13),
    ("Complete Victory: rejoin contest with full starting APs", r(V, COMPLETE), 40, 25),
    ("Marginal Defeat: lose APs equal to 1/8 of your starting value", r(D, MARGINAL), -6 - 5, -6 - 4),
    ("Minor Defeat: lose APs equal to 1/4 of your starting value", r(D, MINOR), -6 - 10, -6 - 7),
    ("Major Defeat: lose APs equal to 1/2 of your starting value", r(D, MAJOR), -6 - 20, -6 - 13),
    ("Complete Defeat: lose APs equal to your full starting value", r(D, COMPLETE), -6 - 40, -6 - 25),
]


@pytest.mark.parametrize(("cell", "result", "from_40", "from_25"), FINAL_ACTION, ids=[c[0][:16] for c in FINAL_ACTION])
def test_final_action_table(cell: str, result: SimpleContestResult, from_40: int, from_25: int) -> None:
    assert final_action_ap(40, -6, result) == from_40
    assert final_action_ap(25, -6, result) == from_25


def test_a_final_action_tied_changes_nothing() -> None:
    assert final_action_ap(40, -6, TIE) == -6


# Table 5.3.10.1 for a current total of 16 (exact) and 13 (rounded up); any victory leaves the contest.
DISENGAGE = [
    ("Marginal: 1/8 of your current total", r(D, MARGINAL), 2, 2),
    ("Minor: 1/4 of your current total", r(D, MINOR), 4, 4),
    ("Major: 1/2 of your current total", r(D, MAJOR), 8, 7),
    ("Complete: your current total - 1", r(D, COMPLETE), 15, 12),
]


@pytest.mark.parametrize(("cell", "result", "from_16", "from_13"), DISENGAGE, ids=[c[0][:8] for c in DISENGAGE])
def test_failed_disengagement_table(cell: str, result: SimpleContestResult, from_16: int, from_13: int) -> None:
    assert disengage(16, result) == Disengagement(withdrawn=False, transferred=from_16)
    assert disengage(13, result) == Disengagement(withdrawn=False, transferred=from_13)


@pytest.mark.parametrize("degree", list(Degree))
def test_any_victory_disengages(degree: Degree) -> None:
    assert disengage(16, r(V, degree)) == Disengagement(withdrawn=True, transferred=0)


def test_a_tied_disengagement_stays_and_transfers_nothing() -> None:
    assert disengage(16, TIE) == Disengagement(withdrawn=False, transferred=0)


# Table 5.3.11.1 for an attempted loan of 6 and of 5 (halves rounded up): (target gains, lender loses).
LENDING = [
    ("Complete Victory: target gains the attempted AP; lender does not lose AP", r(V, COMPLETE), (6, 0), (5, 0)),
    ("Major Victory: target gains the attempted AP; lender loses the AP", r(V, MAJOR), (6, 6), (5, 5)),
    ("Minor Victory: target gains the attempted AP; lender loses the AP", r(V, MINOR), (6, 6), (5, 5)),
    ("Marginal Victory: target gains 1/2; lender loses 1/2", r(V, MARGINAL), (3, 3), (3, 3)),
    ("Tie: no effect", TIE, (0, 0), (0, 0)),
    ("Marginal Defeat: target gains nothing; lender loses 1/2", r(D, MARGINAL), (0, 3), (0, 3)),
    ("Minor Defeat: target gains nothing; lender loses the attempted AP", r(D, MINOR), (0, 6), (0, 5)),
    ("Major Defeat: target gains nothing; lender loses the attempted AP", r(D, MAJOR), (0, 6), (0, 5)),
    ("Complete: target and lender each deduct the attempted AP", r(D, COMPLETE), (-6, 6), (-5, 5)),
]


@pytest.mark.parametrize(("cell", "result", "of_6", "of_5"), LENDING, ids=[c[0][:16] for c in LENDING])
def test_lending_table(cell: str, result: SimpleContestResult, of_6: tuple[int, int], of_5: tuple[int, int]) -> None:
    assert loan(6, result) == Loan(*of_6)
    assert loan(5, result) == Loan(*of_5)


# Table 5.3.12.1 for a bid of 4 and of 3: (recipient gains, recipient's opponent gains).
GIFTING = [
    ("Complete Victory: recipient gains 2x bid", r(V, COMPLETE), (8, 0), (6, 0)),
    ("Major Victory: recipient gains bid", r(V, MAJOR), (4, 0), (3, 0)),
    ("Minor Victory: recipient gains bid", r(V, MINOR), (4, 0), (3, 0)),
    ("Marginal Victory: recipient gains 1/2 of bid", r(V, MARGINAL), (2, 0), (2, 0)),
    ("Tie: no effect", TIE, (0, 0), (0, 0)),
    ("Marginal Defeat: recipient's opponent gains 1/2 bid", r(D, MARGINAL), (0, 2), (0, 2)),
    ("Minor Defeat: recipient's opponent gains bid", r(D, MINOR), (0, 4), (0, 3)),
    ("Major Defeat: recipient's opponent gains bid", r(D, MAJOR), (0, 4), (0, 3)),
    ("Complete: recipient's opponent gains 2x bids", r(D, COMPLETE), (0, 8), (0, 6)),
]


@pytest.mark.parametrize(("cell", "result", "of_4", "of_3"), GIFTING, ids=[c[0][:16] for c in GIFTING])
def test_gifting_table(cell: str, result: SimpleContestResult, of_4: tuple[int, int], of_3: tuple[int, int]) -> None:
    assert gift(4, result) == Gifting(*of_4)
    assert gift(3, result) == Gifting(*of_3)
