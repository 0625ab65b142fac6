"""Whose move: what a contest's view says the table waits for, and from whom (``waiting``, docs/protocol.md
"Whose move"), as the line a person reads: "Your move: seal an intent" for a seat that is awaited (the GM's
seat also when the GM is), "Waiting for Ann and Bo to seal an intent" for everyone else.

    from clients.python.turn import whose_move, my_move
    whose_move(table.view, table.mirror.seat)   # "Waiting for Ann to roll exchange 3"
    my_move(table.view, "ann")                  # ["roll exchange 3"]: what this seat is awaited for
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONCLUDED = "The contest is concluded: nothing more to wait for."


@dataclass(frozen=True)
class Wait:
    """One thing the contest waits for: the seats that must act, who they are in words, and what to do."""

    seats: tuple[str, ...]
    who: str
    doing: str


def waits(view: dict[str, Any] | None) -> list[Wait]:
    """What the view says the contest waits for (nothing for a concluded contest, or a view of another shape)."""
    found = (view or {}).get("waiting") or []
    return [
        Wait(tuple(str(s) for s in w.get("seats") or []), str(w.get("who", "")), str(w.get("doing", "")))
        for w in found
        if isinstance(w, dict)
    ]


def my_move(view: dict[str, Any] | None, seat: str | None) -> list[str]:
    """What ``seat`` is awaited for now (empty when it is not its move)."""
    if seat is None:
        return []
    return list(dict.fromkeys(w.doing for w in waits(view) if seat in w.seats))


def whose_move(view: dict[str, Any] | None, seat: str | None = None) -> str:
    """The line for ``seat``'s page ("Your move: …", then "Waiting for … to …"); empty for no view."""
    if view is None:
        return ""
    if view.get("concluded"):
        return CONCLUDED
    mine = my_move(view, seat)
    parts = [f"Your move: {'; '.join(mine)}"] if mine else []
    parts += [f"Waiting for {w.who} to {w.doing}" for w in waits(view) if seat is None or seat not in w.seats]
    return " · ".join(parts)
