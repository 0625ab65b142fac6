"""The skill roll: three dice, the result is the middle die after penalties; omens on high dice.

The penalty of an action is taken in points off the dice, chosen by the player after seeing them: each −2
unit either takes 2 off one die or 1 off each of two dice, and no die goes below 1. Any split of the points
over the dice can be built from such units (an even total has an even number of odd parts, which pair up
into one-each units), so a choice is a list of points per die: each no more than that die can lose, and
together the whole penalty, or as much of it as the dice can take.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from protocol.rulesets.contingency import OmenRule

EASY, TRICKY, HARD = 3, 5, 6


def result(faces: Sequence[int]) -> int:
    """The middle die."""
    return sorted(faces)[len(faces) // 2]


def omens(faces: Sequence[int], omen_at: int, rule: OmenRule) -> int:
    high = sum(1 for f in faces if f >= omen_at)
    return min(high, 1) if rule == "per_roll" else high


def penalty_for(actions_before: int) -> int:
    """The compounding multi-action penalty: −2 for every action already performed this round."""
    return 2 * actions_before


def owed(faces: Sequence[int], penalty: int) -> int:
    """How many points the dice must lose: the whole penalty, or all they can lose above 1."""
    return min(penalty, sum(f - 1 for f in faces))


def valid(faces: Sequence[int], penalty: int, reductions: Sequence[int]) -> str | None:
    """None when ``reductions`` is a way to take the penalty on these dice, else what is wrong."""
    if len(reductions) != len(faces):
        return f"give one reduction per die ({len(faces)})"
    for i, (face, cut) in enumerate(zip(faces, reductions, strict=True)):
        if cut < 0:
            return f"reductions[{i}]: a die is never raised"
        if face - cut < 1:
            return f"reductions[{i}]: a {face} can lose at most {face - 1}"
    need = owed(faces, penalty)
    if sum(reductions) != need:
        return f"the reductions must add up to {need}, not {sum(reductions)}"
    return None


def choices(faces: Sequence[int], penalty: int) -> list[tuple[int, ...]]:
    """Every way to take the penalty (distinct points per die)."""
    return list(_ways([f - 1 for f in faces], owed(faces, penalty)))


def _ways(most: Sequence[int], need: int) -> Iterator[tuple[int, ...]]:
    """The ways to take ``need`` points off dice that can lose at most ``most`` each, in order, made one by one:
    each die's cut is chosen only where the dice after it can still take the rest, so every choice leads to a
    way (telling one way from several takes a few steps, not one per combination of cuts)."""
    if not most:
        if need == 0:
            yield ()
        return
    rest = sum(most[1:])
    for cut in range(max(0, need - rest), min(most[0], need) + 1):
        for others in _ways(most[1:], need - cut):
            yield (cut, *others)


def forced(faces: Sequence[int], penalty: int) -> list[int] | None:
    """The reductions when the player has no choice to make (no penalty, or one way only)."""
    need = owed(faces, penalty)
    if need == 0:
        return [0] * len(faces)
    ways = list(islice(_ways([f - 1 for f in faces], need), 2))
    return list(ways[0]) if len(ways) == 1 else None


def apply(faces: Sequence[int], reductions: Sequence[int]) -> list[int]:
    return [f - r for f, r in zip(faces, reductions, strict=True)]
