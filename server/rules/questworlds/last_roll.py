"""The newest roll a QuestWorlds contest applied, as its rule state keeps it for the view (``QuestRoll``): the
dice of an exchange once it is applied, or of a simple contest inside the contest, so that a page still draws
them after the exchange is gone. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import QuestRoll, QuestRollKind, RolledSide


def exchange_roll(
    *,
    number: int,
    sides: tuple[RolledSide, RolledSide],
    kind: QuestRollKind,
    winner: str | None,
    result: str = "",
    previous: QuestRoll | None,
) -> QuestRoll | None:
    """An applied exchange's dice (actor's, then defender's); ``winner`` the contestant who won it. An exchange
    that rolled no die at all (an unrelated action with no resistance) leaves the previous roll as the last."""
    if all(side.face is None for side in sides):
        return previous
    ids = [side.contestant for side in sides]
    won = ids.index(winner) if winner is not None and winner in ids else won_by(result)
    return QuestRoll(kind=kind, exchange=number, sides=list(sides), won=won, result=result)


def simple_roll(
    *,
    kind: QuestRollKind,
    exchange: int,
    who: tuple[str | None, str | None],
    faces: Sequence[int | None],
    levels: Sequence[str],
    result: str,
    outsider: str = "",
) -> QuestRoll:
    """A simple contest's dice: the acting side's (``who[0]``, or ``outsider`` when it is not in the contest),
    then the other's (a contestant, or None for a resistance); ``result`` the acting side's."""
    sides = [
        RolledSide(contestant=who[0], face=faces[0], level=levels[0], outsider="" if who[0] else outsider),
        RolledSide(contestant=who[1], face=faces[1], level=levels[1]),
    ]
    return QuestRoll(kind=kind, exchange=exchange, sides=sides, won=won_by(result), result=result)


def won_by(result: str) -> int | None:
    """Which side's die won a simple contest, by the acting side's result: its own on a victory, the other's on
    a defeat, none on a tie."""
    if result.endswith("Victory"):
        return 0
    if result.endswith("Defeat"):
        return 1
    return None
