"""The order of a group round (seed 000 §5.3.3): by daring, by bid or by AP total, with the seed's tie-breaks.

- by daring: reckless before daring before bold before cautious; a tie goes to the higher bid;
- by bid: the higher bid first; a tie goes to the more daring bid;
- by AP total: the higher total first; a tie goes to the higher bid, then the more daring one.
Contestants still level after the tie-breaks keep the order they had (the GM may then set it by hand).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from protocol.rulesets.extended import Daring, OrderMode

DARING: tuple[Daring, ...] = ("cautious", "bold", "daring", "reckless")
"""The four degrees of risk, least daring first."""


@dataclass(frozen=True)
class Declared:
    """What orders a contestant: its declared (or GM-ranked) daring, its bid and its AP total."""

    daring: Daring
    bid: int
    ap: int


def round_order(mode: OrderMode, contestants: Sequence[str], declared: Mapping[str, Declared]) -> list[str]:
    """The contestants in acting order; ``contestants`` gives the order among those still level."""
    position = {c: i for i, c in enumerate(contestants)}

    def key(contestant: str) -> tuple[int, ...]:
        d = declared[contestant]
        daring = DARING.index(d.daring)
        match mode:
            case "daring":
                return (-daring, -d.bid, position[contestant])
            case "bid":
                return (-d.bid, -daring, position[contestant])
            case "ap":
                return (-d.ap, -d.bid, -daring, position[contestant])
            case _:
                assert_never(mode)

    return sorted(contestants, key=key)
