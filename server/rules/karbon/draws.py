"""Taking real dice from one place: at random with the engine's dice, or named at the table.

Random draws roll one die per pick, sized to the candidates left (a d15, then a d14, …); face j picks the
j-th candidate in id order, which then leaves the candidates. The roll is written into the event.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import Dice
from protocol.errors import Refused
from server.engine.ruleset import Context
from server.rules.karbon import codes
from server.rules.karbon.state import KarbonState


def picked(candidates: Sequence[str], roll: Dice) -> list[str]:
    """The dice a random draw picked from ``candidates`` (in id order)."""
    left = list(candidates)
    return [left.pop(face - 1) for face in roll.faces]


def draw(
    candidates: Sequence[str], count: int, named: list[str] | None, by_name: bool, ctx: Context, field: str
) -> tuple[list[str], Dice | None]:
    """``count`` dice (or all there are) from ``candidates``: named ones when ``by_name``, else random."""
    count = min(count, len(candidates))
    if not by_name:
        if named is not None:
            raise Refused(codes.DRAWS_RANDOM, f"{field}: these dice are drawn at random; do not name them")
        if count == 0:
            return [], None
        roll = ctx.dice.roll([len(candidates) - j for j in range(count)])
        return picked(candidates, roll), roll
    if named is None:
        raise Refused(codes.WRONG_COUNT, f"{field}: name the {count} dice drawn")
    return distinct_from(candidates, named, count, field), None


def distinct_from(candidates: Sequence[str], named: list[str], count: int, field: str) -> list[str]:
    """Exactly ``count`` distinct dice, each one of ``candidates``."""
    if len(named) != count:
        raise Refused(codes.WRONG_COUNT, f"{field}: name {count} dice, not {len(named)}")
    if len(set(named)) != len(named):
        raise Refused(codes.WRONG_COUNT, f"{field}: a die is named twice")
    for die in named:
        if die not in candidates:
            raise Refused(codes.WRONG_PLACE, f"{field}: {die!r} is not one of {list(candidates)}")
    return list(named)


def by_name(state: KarbonState, ctx: Context) -> bool:
    """Whether hands (and the draws that follow their rule) are named: physical dice or `choose`."""
    return ctx.dice.mode == "physical" or state.draw == "choose"
