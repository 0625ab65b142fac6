"""Who is at the table, in words: a ``presence`` message as the line a person reads ("at the table: the GM, Ann
(you); away: Bo · 2 spectators"). Seats by the names the GM gave them; else the GM's seat is "the GM" and a
player's is named by the contestants it plays."""

from __future__ import annotations

from collections.abc import Callable

from protocol.presence import Presence, SeatPresence


def _same(ident: str) -> str:
    return ident


def seat_called(seat: SeatPresence, names: Callable[[str], str] = _same) -> str:
    """The name people read for ``seat`` (``names``: a contestant's id -> the name shown for it)."""
    if isinstance(seat.name, str) and seat.name.strip():
        return seat.name.strip()
    if seat.role == "gm":
        return "the GM"
    if seat.contestants:
        return " and ".join(names(c) for c in seat.contestants) + "'s player"
    return seat.seat


def _count(count: int, one: str) -> str:
    return f"{count} {one}" if count == 1 else f"{count} {one}s"


def presence_line(presence: Presence, names: Callable[[str], str] = _same, mine: str | None = None) -> str:
    """Who holds a seat, who is away, and how many watch (and read, for the GM), in one line; ``mine``: the
    reader's seat, marked "(you)"."""
    here = [seat_called(s, names) + (" (you)" if s.seat == mine else "") for s in presence.seats if s.here]
    away = [seat_called(s, names) for s in presence.seats if not s.here]
    line = f"at the table: {', '.join(here) or 'nobody'}"
    if away:
        line += f"; away: {', '.join(away)}"
    if presence.spectators:
        line += f" · {_count(presence.spectators, 'spectator')}"
    if isinstance(presence.auditors, int) and presence.auditors:
        line += f" · {_count(presence.auditors, 'auditor')} reading"
    return line
