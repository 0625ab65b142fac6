"""The arithmetic of a scored sequence: successes (SRD 0.965 simple contest), the winner and degree of a
round, the resolution points it lodges with risky gambits and defensive responses, the outcome table and
the assist resistance."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.rulesets.scored import TacticKind
from server.rules.questworlds.ratings import Rating

DEFEAT_AT = 5  # resolution points against a tally that lose the sequence (§5.2)
FOLLOWER_ROUND_LIMIT = 3  # a follower-contestant is out when a round lodges this many against it (§5.2.1.3)
SECONDARY_LIMIT = 3  # a secondary contestant is out at this many against it (§5.2.1.3)
ASSIST_STEP = 5  # each later assist to the same beneficiary faces this much more resistance (§5.2.6)


def successes(face: int, rating: Rating) -> int:
    """One success for a die at or under the TN, one more for a die exactly on it, one per mastery."""
    hit = 1 if face <= rating.tn else 0
    big = 1 if face == rating.tn else 0
    return hit + big + rating.masteries


@dataclass(frozen=True)
class Result:
    """Who won a simple contest (0: the first party, 1: the second, None: a standoff) and by how much."""

    winner: int | None
    degree: int


def compare(first: tuple[int, int], second: tuple[int, int]) -> Result:
    """Each side as (successes, die). More successes wins by the difference; equal successes: the higher
    die wins with degree 0; equal dice too: a standoff."""
    (s1, d1), (s2, d2) = first, second
    if s1 != s2:
        return Result(0 if s1 > s2 else 1, abs(s1 - s2))
    if d1 != d2:
        return Result(0 if d1 > d2 else 1, 0)
    return Result(None, 0)


def resolution_points(degree: int) -> int:
    """§5.2.1.1: one more than the degree."""
    return degree + 1


def round_points(degree: int, winner: TacticKind, loser: TacticKind) -> int:
    """RP the round's winner lodges against the loser, with both sides' tactics (§5.2.4, §5.2.5).

    A winning gambit adds 1, a losing gambit gives the winner 2 more, two gambits give the winner 2 more;
    a winning defensive response takes 1 off, a losing one 2. Never below 0."""
    points = resolution_points(degree)
    if winner == "gambit" and loser == "gambit":
        points += 2
    else:
        points += 1 if winner == "gambit" else 0
        points += 2 if loser == "gambit" else 0
    points -= 1 if winner == "defensive" else 0
    points -= 2 if loser == "defensive" else 0
    return max(points, 0)


def outcome_degree(difference: int) -> int:
    """§5.2.2.1: the degree of victory or defeat from the difference between the two tallies.

    The table starts at 1; a difference of 0 (possible only when several contestants share a side) is
    read as degree 0."""
    difference = abs(difference)
    if difference >= 9:
        return 4
    return max(difference - 1, 0) // 2


def assist_resistance(base: Rating, earlier: int) -> Rating:
    """§5.2.6: the base resistance, +5 for each earlier assist to the same beneficiary, by anyone."""
    return base.modified(ASSIST_STEP * earlier)
