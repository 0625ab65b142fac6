"""One exchange: seed 000 table 5.3.1.1 (fourth row read as Fumble) and RULES.md §1 "The exchange table"."""

from __future__ import annotations

from fractions import Fraction

import pytest

from server.rules.extended.exchange import ExchangeParty, ExchangeResult, Party, payment, resolve_exchange
from server.rules.questworlds.levels import BetterRoll, Level

CRITICAL, SUCCESS, FAILURE, FUMBLE = Level.CRITICAL, Level.SUCCESS, Level.FAILURE, Level.FUMBLE
ACTOR, DEFENDER = Party.ACTOR, Party.DEFENDER
HALF = Fraction(1, 2)

# A face for each level at TN 10, for the cells where the dice do not matter.
FACE = {CRITICAL: 1, SUCCESS: 7, FAILURE: 14, FUMBLE: 20}

# Table 5.3.1.1 written out cell by cell, row result against column result. "row"/"column" is who wins;
# the same-level cells are tested with dice below. Payments are for a bid of 6 and of 3 (halves round up).
# row, column, the seed's cell text, winner, steps, multiplier, pays at bid 6, pays at bid 3, transferred
DIFFERENT_LEVELS = [
    (CRITICAL, SUCCESS, "Loser transfers 1x bid**", "row", 1, Fraction(1), 6, 3, True),
    (CRITICAL, FAILURE, "Loser transfers 2x bid**", "row", 2, Fraction(2), 12, 6, True),
    (CRITICAL, FUMBLE, "Loser transfers 3x bid**", "row", 3, Fraction(3), 18, 9, True),
    (SUCCESS, CRITICAL, "Loser transfers 1x bid**", "column", 1, Fraction(1), 6, 3, True),
    (SUCCESS, FAILURE, "Loser loses 1x bid", "row", 1, Fraction(1), 6, 3, False),
    (SUCCESS, FUMBLE, "Loser loses 2x bid**", "row", 2, Fraction(2), 12, 6, False),
    (FAILURE, CRITICAL, "Loser transfers 2x bid**", "column", 2, Fraction(2), 12, 6, True),
    (FAILURE, SUCCESS, "Loser loses 1x bid", "column", 1, Fraction(1), 6, 3, False),
    (FAILURE, FUMBLE, "Loser loses 1x bid**", "row", 1, Fraction(1), 6, 3, False),
    (FUMBLE, CRITICAL, "Loser transfers 3x bid**", "column", 3, Fraction(3), 18, 9, True),
    (FUMBLE, SUCCESS, "Loser loses 2x bid", "column", 2, Fraction(2), 12, 6, False),
    (FUMBLE, FAILURE, "Loser loses 1x bid**", "column", 1, Fraction(1), 6, 3, False),
]


def party(level: Level, die: int | None = None, value: int = 10, edge: int = 0) -> ExchangeParty:
    return ExchangeParty(level=level, die=FACE[level] if die is None else die, value=value, edge=edge)


@pytest.mark.parametrize("row_acts", [True, False], ids=["row acts", "column acts"])
@pytest.mark.parametrize(("bid", "bid_column"), [(6, 0), (3, 1)], ids=["bid 6", "bid 3"])
@pytest.mark.parametrize(
    ("row", "column", "cell", "wins", "steps", "multiplier", "pays_6", "pays_3", "transferred"), DIFFERENT_LEVELS
)
def test_table_cells_with_different_levels(
    row: Level,
    column: Level,
    cell: str,
    wins: str,
    steps: int,
    multiplier: Fraction,
    pays_6: int,
    pays_3: int,
    transferred: bool,
    bid: int,
    bid_column: int,
    row_acts: bool,
) -> None:
    pays = (pays_6, pays_3)[bid_column]
    if row_acts:
        actor, defender = party(row), party(column)
        winner = ACTOR if wins == "row" else DEFENDER
    else:
        actor, defender = party(column), party(row)
        winner = DEFENDER if wins == "row" else ACTOR
    assert resolve_exchange(actor, defender, bid) == ExchangeResult(
        winner=winner,
        steps=steps,
        multiplier=multiplier,
        stake=bid,
        loser_loses=pays,
        winner_gains=pays if transferred else 0,
        transferred=transferred,
    )


# Same-level cells: "Worse roll transfers/loses ½x bid, else tie"; Fumble/Fumble "Tie*".
# level, actor die, defender die, better roll, winner, pays at bid 6, transferred
SAME_LEVEL: list[tuple[Level, int, int, BetterRoll, Party | None, int, bool]] = [
    # Critical/Critical: "Worse roll transfers ½x bid, else tie**" (a Critical can come from a bump)
    (CRITICAL, 1, 4, "low", ACTOR, 3, True),
    (CRITICAL, 1, 4, "high", DEFENDER, 3, True),
    (CRITICAL, 4, 1, "low", DEFENDER, 3, True),
    (CRITICAL, 4, 1, "high", ACTOR, 3, True),
    (CRITICAL, 1, 1, "low", None, 0, False),
    (CRITICAL, 1, 1, "high", None, 0, False),
    # Success/Success: "Worse roll loses ½x bid, else tie"
    (SUCCESS, 3, 8, "low", ACTOR, 3, False),
    (SUCCESS, 3, 8, "high", DEFENDER, 3, False),
    (SUCCESS, 8, 3, "low", DEFENDER, 3, False),
    (SUCCESS, 8, 3, "high", ACTOR, 3, False),
    (SUCCESS, 6, 6, "low", None, 0, False),
    (SUCCESS, 6, 6, "high", None, 0, False),
    # Failure/Failure: "Worse roll loses ½x bid, else tie"
    (FAILURE, 12, 15, "low", ACTOR, 3, False),
    (FAILURE, 12, 15, "high", DEFENDER, 3, False),
    (FAILURE, 15, 12, "low", DEFENDER, 3, False),
    (FAILURE, 15, 12, "high", ACTOR, 3, False),
    (FAILURE, 13, 13, "low", None, 0, False),
    (FAILURE, 13, 13, "high", None, 0, False),
    # Fumble/Fumble: "Tie*", whatever the dice (a Fumble can come from a bump down)
    (FUMBLE, 20, 20, "low", None, 0, False),
    (FUMBLE, 20, 20, "high", None, 0, False),
    (FUMBLE, 15, 20, "low", None, 0, False),
    (FUMBLE, 15, 20, "high", None, 0, False),
    (FUMBLE, 20, 15, "low", None, 0, False),
]


@pytest.mark.parametrize(
    ("level", "actor_die", "defender_die", "better_roll", "winner", "pays", "transferred"), SAME_LEVEL
)
def test_table_cells_with_the_same_level(
    level: Level,
    actor_die: int,
    defender_die: int,
    better_roll: BetterRoll,
    winner: Party | None,
    pays: int,
    transferred: bool,
) -> None:
    result = resolve_exchange(party(level, actor_die), party(level, defender_die), 6, better_roll=better_roll)
    assert result.winner == winner
    assert result.steps == 0
    assert result.multiplier == HALF
    assert result.loser_loses == pays
    assert result.winner_gains == (pays if transferred else 0)
    assert result.transferred is transferred


def test_default_better_roll_is_low() -> None:
    result = resolve_exchange(party(SUCCESS, 3), party(SUCCESS, 8), 6)
    assert result.winner is ACTOR


# Halves round up: bid, pays at ½
HALVES = [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (7, 4), (10, 5), (11, 6)]


@pytest.mark.parametrize(("bid", "pays"), HALVES)
def test_halves_round_up(bid: int, pays: int) -> None:
    result = resolve_exchange(party(SUCCESS, 3), party(SUCCESS, 8), bid)
    assert result.loser_loses == pays
    assert payment(bid, HALF) == pays


# "If the loser has ability 6 less than their opponent or worse, do not transfer, loser just loses AP instead."
# winner level, winner value, loser level, loser value, loser loses at bid 4, transferred
NO_TRANSFER_DOWN = [
    (CRITICAL, 15, SUCCESS, 15, 4, True),
    (CRITICAL, 15, SUCCESS, 20, 4, True),
    (CRITICAL, 15, SUCCESS, 10, 4, True),  # exactly 5 below: transfers
    (CRITICAL, 15, SUCCESS, 9, 4, False),  # 6 below: does not
    (CRITICAL, 15, SUCCESS, 1, 4, False),
    (CRITICAL, 45, FAILURE, 39, 8, False),
    (CRITICAL, 45, FAILURE, 40, 8, True),
    (CRITICAL, 15, FUMBLE, -2, 12, False),
    (CRITICAL, 5, FAILURE, 0, 8, True),
    (CRITICAL, 5, FAILURE, -1, 8, False),
]


@pytest.mark.parametrize("winner_acts", [True, False], ids=["winner acts", "winner defends"])
@pytest.mark.parametrize(
    ("win_level", "win_value", "lose_level", "lose_value", "loses", "transferred"), NO_TRANSFER_DOWN
)
def test_no_transfer_down(
    win_level: Level,
    win_value: int,
    lose_level: Level,
    lose_value: int,
    loses: int,
    transferred: bool,
    winner_acts: bool,
) -> None:
    winning, losing = party(win_level, value=win_value), party(lose_level, value=lose_value)
    if winner_acts:
        result = resolve_exchange(winning, losing, 4)
        assert result.winner is ACTOR
    else:
        result = resolve_exchange(losing, winning, 4)
        assert result.winner is DEFENDER
    assert result.loser_loses == loses
    assert result.transferred is transferred
    assert result.winner_gains == (loses if transferred else 0)


def test_no_transfer_down_in_the_same_level_critical_cell() -> None:
    result = resolve_exchange(party(CRITICAL, 1, value=25), party(CRITICAL, 3, value=19), 6)
    assert (result.winner, result.loser_loses, result.winner_gains, result.transferred) == (ACTOR, 3, 0, False)


# Edges and handicaps (§5.3.13): the actor's edge is added to (handicap subtracted from) the bid before
# multiplying, only when the defender pays, never below 0; the defender's own edge never applies.
# actor level, actor edge, defender level, defender edge, bid, winner, stake, loser loses, winner gains
EDGES = [
    (SUCCESS, 2, FAILURE, 0, 3, ACTOR, 5, 5, 0),
    (SUCCESS, 2, FUMBLE, 0, 3, ACTOR, 5, 10, 0),
    (CRITICAL, 2, FUMBLE, 0, 3, ACTOR, 5, 15, 15),
    (CRITICAL, 1, FAILURE, 0, 3, ACTOR, 4, 8, 8),
    (FAILURE, 2, SUCCESS, 0, 3, DEFENDER, 3, 3, 0),
    (FAILURE, 2, CRITICAL, 0, 3, DEFENDER, 3, 6, 6),
    (SUCCESS, -2, FAILURE, 0, 3, ACTOR, 1, 1, 0),
    (SUCCESS, -3, FAILURE, 0, 3, ACTOR, 0, 0, 0),
    (SUCCESS, -5, FAILURE, 0, 3, ACTOR, 0, 0, 0),
    (CRITICAL, -5, FUMBLE, 0, 3, ACTOR, 0, 0, 0),
    (FAILURE, -2, SUCCESS, 0, 3, DEFENDER, 3, 3, 0),
    (SUCCESS, 0, FAILURE, 4, 3, ACTOR, 3, 3, 0),
    (FAILURE, 0, SUCCESS, 4, 3, DEFENDER, 3, 3, 0),
    (FAILURE, 0, CRITICAL, 4, 3, DEFENDER, 3, 6, 6),
    (SUCCESS, 1, FAILURE, -3, 3, ACTOR, 4, 4, 0),
]


@pytest.mark.parametrize(
    ("actor_level", "actor_edge", "defender_level", "defender_edge", "bid", "winner", "stake", "loses", "gains"),
    EDGES,
)
def test_edges_and_handicaps(
    actor_level: Level,
    actor_edge: int,
    defender_level: Level,
    defender_edge: int,
    bid: int,
    winner: Party,
    stake: int,
    loses: int,
    gains: int,
) -> None:
    result = resolve_exchange(party(actor_level, edge=actor_edge), party(defender_level, edge=defender_edge), bid)
    assert (result.winner, result.stake, result.loser_loses, result.winner_gains) == (winner, stake, loses, gains)


def test_edge_before_halving() -> None:
    # bid 3 + ^2 = 5, half of 5 rounded up = 3
    result = resolve_exchange(party(SUCCESS, 3, edge=2), party(SUCCESS, 8), 3)
    assert (result.winner, result.stake, result.loser_loses) == (ACTOR, 5, 3)


def test_edge_not_applied_on_a_tie() -> None:
    result = resolve_exchange(party(SUCCESS, 6, edge=2), party(SUCCESS, 6), 3)
    assert (result.winner, result.stake, result.loser_loses) == (None, 3, 0)


# Asymmetrical exchange (§5.3.8): the actor wins nothing on a win and pays as usual on a loss.
# actor level, actor die, defender level, defender die, winner, loser loses, winner gains, transferred
ASYMMETRICAL = [
    (CRITICAL, 1, FAILURE, 14, ACTOR, 0, 0, False),
    (SUCCESS, 7, FUMBLE, 20, ACTOR, 0, 0, False),
    (SUCCESS, 3, SUCCESS, 8, ACTOR, 0, 0, False),
    (FAILURE, 14, CRITICAL, 1, DEFENDER, 8, 8, True),
    (FAILURE, 14, SUCCESS, 7, DEFENDER, 4, 0, False),
    (SUCCESS, 8, SUCCESS, 3, DEFENDER, 2, 0, False),
    (FUMBLE, 20, SUCCESS, 7, DEFENDER, 8, 0, False),
    (SUCCESS, 6, SUCCESS, 6, None, 0, 0, False),
]


@pytest.mark.parametrize(
    ("actor_level", "actor_die", "defender_level", "defender_die", "winner", "loses", "gains", "transferred"),
    ASYMMETRICAL,
)
def test_asymmetrical_exchange(
    actor_level: Level,
    actor_die: int,
    defender_level: Level,
    defender_die: int,
    winner: Party | None,
    loses: int,
    gains: int,
    transferred: bool,
) -> None:
    result = resolve_exchange(
        party(actor_level, actor_die, edge=2), party(defender_level, defender_die), 4, asymmetrical=True
    )
    assert (result.winner, result.loser_loses, result.winner_gains, result.transferred) == (
        winner,
        loses,
        gains,
        transferred,
    )


# A side of value 0 or less rolls no die and counts as Failure.
# actor level, actor die, defender level, defender die, winner, loser loses at bid 4
NO_DIE = [
    (FAILURE, None, SUCCESS, 7, DEFENDER, 4),
    (FAILURE, None, FUMBLE, 20, ACTOR, 4),
    (FAILURE, None, CRITICAL, 1, DEFENDER, 8),
    (FAILURE, None, FAILURE, 14, DEFENDER, 2),
    (FAILURE, 14, FAILURE, None, ACTOR, 2),
    (FAILURE, None, FAILURE, None, None, 0),
]


@pytest.mark.parametrize(("actor_level", "actor_die", "defender_level", "defender_die", "winner", "loses"), NO_DIE)
def test_a_side_without_a_die(
    actor_level: Level,
    actor_die: int | None,
    defender_level: Level,
    defender_die: int | None,
    winner: Party | None,
    loses: int,
) -> None:
    actor = ExchangeParty(actor_level, actor_die, 0 if actor_die is None else 10)
    defender = ExchangeParty(defender_level, defender_die, 0 if defender_die is None else 10)
    result = resolve_exchange(actor, defender, 4)
    assert (result.winner, result.loser_loses) == (winner, loses)


@pytest.mark.parametrize(
    ("winner", "loser"), [(ACTOR, DEFENDER), (DEFENDER, ACTOR), (None, None)], ids=["actor", "defender", "tie"]
)
def test_loser(winner: Party | None, loser: Party | None) -> None:
    assert ExchangeResult(winner, 0, HALF, 3, 0, 0, False).loser == loser


@pytest.mark.parametrize("bid", [0, -3])
def test_a_bid_is_at_least_1(bid: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        resolve_exchange(party(SUCCESS), party(FAILURE), bid)
