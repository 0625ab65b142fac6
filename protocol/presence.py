"""Presence: who is at a contest's table now, live, across every server process sharing the store.

Presence is about connections, not about the contest: it is never stored in the contest's log, never part of a
view, and carries nothing a viewer may not see (the seats and their names are in the contest's first event,
which every viewer reads; no token, no sealed payload).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from protocol.common import Id, Name


class SeatPresence(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One seat of the contest (the GM's included) and whether at least one connection holds it now.

    ``name``: the name the GM gave the seat (absent when none: a page calls the GM's seat "the GM", and a player's
    by the contestants it plays); ``contestants``: the ids of the contestants the seat plays."""

    seat: Id
    role: Literal["gm", "player"]
    here: bool
    contestants: list[Id] = []
    name: Name | msgspec.UnsetType = msgspec.UNSET


class Presence(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="presence"):
    """Who is at the table now: every seat of the contest and whether someone holds it, and how many spectators
    are watching, counted over every server process sharing the store. Sent right after the ``welcome`` of a
    follow and again whenever it changes (at most about ten times a second per contest). Never logged.

    ``auditors``: how many auditors are reading, on the GM's and auditors' frames only (absent on players' and
    spectators': an auditor is no one at the table)."""

    contest: str
    seats: list[SeatPresence]
    spectators: int
    auditors: int | msgspec.UnsetType = msgspec.UNSET
