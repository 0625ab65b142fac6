"""Seed 001 line by line: the winner, the winner table × the loser table, edges, the special cases, the
optional rule, and the four worked examples (Erik and Jonas), with and without the cap."""

from __future__ import annotations

import pytest

from server.rules.herowars.exchange import Resolution, Roll, resolve, winner_of
from server.rules.questworlds.levels import Level

CRIT, SUCC, FAIL, FUMB = Level.CRITICAL, Level.SUCCESS, Level.FAILURE, Level.FUMBLE


def r(level: Level, face: int | None = 10) -> Roll:
    return Roll(level, face)


# --- 2. Determine winner and loser --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actor", "defender", "winner"),
    [
        (r(CRIT, 1), r(SUCC, 5), "actor"),  # the highest degree of success wins
        (r(SUCC, 5), r(CRIT, 1), "defender"),
        (r(SUCC, 5), r(FAIL, 17), "actor"),
        (r(FAIL, 17), r(SUCC, 5), "defender"),
        (r(FAIL, 17), r(FUMB, 20), "actor"),
        (r(CRIT, 1), r(FUMB, 20), "actor"),
        (r(SUCC, 4), r(SUCC, 9), "actor"),  # both Success: the lowest roll wins
        (r(SUCC, 9), r(SUCC, 4), "defender"),
        (r(SUCC, 7), r(SUCC, 7), None),  # the same roll: a tie
        (r(SUCC, None), r(SUCC, 19), "defender"),  # no die (a hero point raised it) is the worse roll
        (r(SUCC, 19), r(SUCC, None), "actor"),
        (r(SUCC, None), r(SUCC, None), None),
        (r(CRIT, 1), r(CRIT, 1), None),  # both Critical: a tie (the first example)
        (r(CRIT, 3), r(CRIT, 1), None),  # Criticals by masteries tie too, whatever the dice
    ],
)
def test_the_better_level_wins_and_the_lower_roll_between_successes(
    actor: Roll, defender: Roll, winner: str | None
) -> None:
    assert winner_of(actor, defender) == winner


# --- 3. Winner table × loser table -----------------------------------------------------------------------

# (winner's level, loser's level, loss for a bid of 10, transferred)
TABLE = [
    (CRIT, SUCC, 10, True),  # double bid (20), halved by the loser's Success, transferred
    (CRIT, FAIL, 20, True),  # double bid, full loss, transferred
    (CRIT, FUMB, 40, True),  # double bid, doubled by the loser's Fumble, transferred
    (SUCC, SUCC, 10, False),  # double bid, halved
    (SUCC, FAIL, 20, False),  # double bid, full loss
    (SUCC, FUMB, 40, False),  # double bid, double loss
]


@pytest.mark.parametrize(("won", "lost", "loss", "transfer"), TABLE)
@pytest.mark.parametrize("actor_wins", [True, False])
def test_winner_table_times_loser_table(won: Level, lost: Level, loss: int, transfer: bool, actor_wins: bool) -> None:
    winner, loser = r(won, 3), r(lost, 9)
    actor, defender = (winner, loser) if actor_wins else (loser, winner)
    result = resolve(actor, defender, bid=10)
    side = "actor" if actor_wins else "defender"
    assert result.winner == side
    assert result.case == ("transfer" if transfer else "win")
    assert (result.defender_loss, result.actor_loss) == ((loss, 0) if actor_wins else (0, loss))
    assert result.gained == (loss if transfer else 0)


def test_a_failure_winner_keeps_the_bid_whole_and_the_fumbling_loser_doubles_it() -> None:
    # Winner table "Failure -- full bid" meets loser table "Fumble -- take double loss" (the special case)
    result = resolve(r(FAIL, 17), r(FUMB, 20), bid=10)
    assert result.defender_loss == 20


def test_an_odd_bid_halved_by_a_successful_loser() -> None:
    # 7 doubled is 14, halved is 7: the loser's Success halves the winner's doubled bid
    assert resolve(r(SUCC, 3), r(SUCC, 8), bid=7).defender_loss == 7


# --- 3. Edges and handicaps are added to the bid first --------------------------------------------------


@pytest.mark.parametrize(
    ("edge", "loss"),
    [(2, 24), (-2, 16), (-10, 0), (-15, 0)],  # (10 + edge) × 2, never below 0
)
def test_the_actors_edge_or_handicap_is_added_to_the_bid_first(edge: int, loss: int) -> None:
    assert resolve(r(SUCC, 5), r(FAIL, 17), bid=10, edge=edge).defender_loss == loss


def test_the_actors_edge_does_not_raise_what_the_actor_pays() -> None:
    assert resolve(r(FAIL, 17), r(SUCC, 5), bid=10, edge=4).actor_loss == 20


# --- Special cases ---------------------------------------------------------------------------------------


def test_both_roll_failure_both_lose_the_full_bid() -> None:
    assert resolve(r(FAIL, 17), r(FAIL, 18), bid=10) == Resolution("both_failure", None, 10, 10, 0)


def test_both_failure_with_masteries_is_treated_as_both_success() -> None:
    result = resolve(r(FAIL, 17), r(FAIL, 18), bid=10, both_masteries=True)
    assert (result.case, result.winner, result.actor_loss, result.defender_loss) == ("win", "actor", 0, 10)
    result = resolve(r(FAIL, 18), r(FAIL, 17), bid=10, both_masteries=True)
    assert (result.case, result.winner, result.actor_loss, result.defender_loss) == ("win", "defender", 10, 0)
    assert resolve(r(FAIL, 17), r(FAIL, 17), bid=10, both_masteries=True).case == "tie"


def test_both_roll_fumble_both_lose_double_the_bid() -> None:
    assert resolve(r(FUMB, 20), r(FUMB, 20), bid=10) == Resolution("both_fumble", None, 20, 20, 0)


@pytest.mark.parametrize(("levels", "losses"), [((FAIL, FUMB), (10, 20)), ((FUMB, FAIL), (20, 10))])
def test_failure_against_fumble_the_winner_loses_the_full_bid_and_the_loser_double(
    levels: tuple[Level, Level], losses: tuple[int, int]
) -> None:
    result = resolve(r(levels[0], 17), r(levels[1], 20), bid=10)
    assert result.case == "failure_vs_fumble"
    assert result.winner == ("actor" if levels[0] is FAIL else "defender")
    assert (result.actor_loss, result.defender_loss) == losses
    assert result.gained == 0


def test_special_cases_add_the_edge_to_what_the_defender_pays() -> None:
    assert resolve(r(FAIL, 17), r(FAIL, 18), bid=10, edge=3) == Resolution("both_failure", None, 10, 13, 0)
    assert resolve(r(FUMB, 20), r(FUMB, 20), bid=10, edge=3) == Resolution("both_fumble", None, 20, 26, 0)


def test_a_tie_is_left_to_the_narrator() -> None:
    result = resolve(r(SUCC, 6), r(SUCC, 6), bid=10)
    assert (result.case, result.winner, result.actor_loss, result.defender_loss) == ("tie", None, 0, 0)


# --- Optional rule: no loss or transfer greater than three times the modified bid -------------------------


@pytest.mark.parametrize(("won", "lost", "loss", "transfer"), TABLE)
def test_the_optional_rule_caps_every_loss_and_transfer_at_three_times_the_bid(
    won: Level, lost: Level, loss: int, transfer: bool
) -> None:
    result = resolve(r(won, 3), r(lost, 9), bid=10, cap_3x=True)
    assert result.defender_loss == min(loss, 30)
    assert result.gained == (min(loss, 30) if transfer else 0)
    assert result.capped == (loss > 30)


def test_the_cap_is_three_times_the_modified_bid() -> None:
    assert resolve(r(SUCC, 5), r(FUMB, 20), bid=10, edge=2, cap_3x=True).defender_loss == 36


@pytest.mark.parametrize("cap", [False, True])
def test_the_cap_leaves_the_special_cases_alone(cap: bool) -> None:
    assert resolve(r(FUMB, 20), r(FUMB, 20), bid=10, cap_3x=cap) == Resolution("both_fumble", None, 20, 20, 0)
    assert resolve(r(FAIL, 17), r(FUMB, 20), bid=10, cap_3x=cap).defender_loss == 20


# --- Examples (Erik acts and bids 10; Jonas defends) -------------------------------------------------------


@pytest.mark.parametrize("cap", [False, True])
def test_example_both_critical_is_a_tie_for_the_narrator(cap: bool) -> None:
    result = resolve(r(CRIT, 1), r(CRIT, 1), bid=10, cap_3x=cap)
    assert result.case == "tie" and result.winner is None


@pytest.mark.parametrize("cap", [False, True])
def test_example_erik_wins_with_a_success_jonas_loses_with_a_higher_success(cap: bool) -> None:
    # "his bid is doubled: 10x2=20 ... the loss is halved: 20/2=10. Jonas loses 10 AP."
    result = resolve(r(SUCC, 6), r(SUCC, 12), bid=10, cap_3x=cap)
    assert (result.winner, result.defender_loss, result.actor_loss, result.gained) == ("actor", 10, 0, 0)


@pytest.mark.parametrize(("cap", "loss"), [(False, 40), (True, 30)])
def test_example_erik_fumbles_and_jonas_wins_with_a_success(cap: bool, loss: int) -> None:
    # "Erik's bid is doubled: 10x2=20. Erik's Fumble doubles the loss (20x2=40). Erik loses 40 AP.
    #  If the narrator had used the optional rules, Erik's loss would have been only 30 AP."
    result = resolve(r(FUMB, 20), r(SUCC, 8), bid=10, cap_3x=cap)
    assert (result.winner, result.actor_loss, result.defender_loss, result.gained) == ("defender", loss, 0, 0)


@pytest.mark.parametrize("cap", [False, True])
def test_example_erik_wins_with_a_critical_and_jonas_fails(cap: bool) -> None:
    # "his bid is doubled: 10x2=20. Jonas loses with a Failure (takes full loss). ... it is a transfer.
    #  Jonas loses 20 AP. Erik gains 20 AP."
    result = resolve(r(CRIT, 1), r(FAIL, 17), bid=10, cap_3x=cap)
    assert (result.case, result.winner, result.defender_loss, result.gained) == ("transfer", "actor", 20, 20)
