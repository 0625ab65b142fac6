"""The simple contests a contestant (or an onlooker) can try inside an extended contest, and their tables.

Seed 000: final action (table 5.3.5.1), disengaging (table 5.3.10.1), AP lending (table 5.3.11.1) and AP
gifting (table 5.3.12.1). Each takes the acting side's simple contest result; fractions round up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import assert_never

from server.rules.questworlds.outcome import Degree, Result, SimpleContestResult

FRACTION_BY_DEGREE = {
    Degree.MARGINAL: Fraction(1, 8),
    Degree.MINOR: Fraction(1, 4),
    Degree.MAJOR: Fraction(1, 2),
    Degree.COMPLETE: Fraction(1),
}
"""Tables 5.3.5.1 and 5.3.10.1: the share of starting (or current) AP each degree stands for."""


def share(total: int, degree: Degree) -> int:
    return math.ceil(FRACTION_BY_DEGREE[degree] * total)


def half(amount: int) -> int:
    return math.ceil(Fraction(amount, 2))


def final_action_ap(starting_ap: int, ap: int, result: SimpleContestResult) -> int:
    """Table 5.3.5.1: a victory rejoins with 1/8, 1/4, 1/2 or all of the starting AP; a defeat loses as much.
    A tie changes nothing."""
    if result.degree is None:
        return ap
    match result.result:
        case Result.VICTORY:
            return share(starting_ap, result.degree)
        case Result.DEFEAT:
            return ap - share(starting_ap, result.degree)
        case Result.TIE:
            return ap
        case _:
            assert_never(result.result)


@dataclass(frozen=True)
class Disengagement:
    withdrawn: bool
    transferred: int  # AP given to the opponent


def disengage(current_ap: int, result: SimpleContestResult) -> Disengagement:
    """Table 5.3.10.1: any victory leaves; a defeat stays and transfers 1/8, 1/4, 1/2 of the current AP, or
    all of it but 1; a tie stays and transfers nothing."""
    if result.result is Result.VICTORY:
        return Disengagement(True, 0)
    if result.degree is None:
        return Disengagement(False, 0)
    if result.degree is Degree.COMPLETE:
        return Disengagement(False, max(current_ap - 1, 0))
    return Disengagement(False, share(current_ap, result.degree))


@dataclass(frozen=True)
class Loan:
    target_gains: int  # negative: the target deducts it
    lender_loses: int


def loan(attempted: int, result: SimpleContestResult) -> Loan:
    """Table 5.3.11.1."""
    degree = result.degree
    if degree is None:
        return Loan(0, 0)
    match result.result:
        case Result.VICTORY:
            if degree is Degree.COMPLETE:
                return Loan(attempted, 0)
            if degree is Degree.MARGINAL:
                return Loan(half(attempted), half(attempted))
            return Loan(attempted, attempted)
        case Result.DEFEAT:
            if degree is Degree.COMPLETE:
                return Loan(-attempted, attempted)
            if degree is Degree.MARGINAL:
                return Loan(0, half(attempted))
            return Loan(0, attempted)
        case Result.TIE:
            return Loan(0, 0)
        case _:
            assert_never(result.result)


@dataclass(frozen=True)
class Gifting:
    recipient_gains: int
    opponent_gains: int


def gift(bid: int, result: SimpleContestResult) -> Gifting:
    """Table 5.3.12.1."""
    degree = result.degree
    if degree is None:
        return Gifting(0, 0)
    amount = 2 * bid if degree is Degree.COMPLETE else half(bid) if degree is Degree.MARGINAL else bid
    match result.result:
        case Result.VICTORY:
            return Gifting(amount, 0)
        case Result.DEFEAT:
            return Gifting(0, amount)
        case Result.TIE:
            return Gifting(0, 0)
        case _:
            assert_never(result.result)
