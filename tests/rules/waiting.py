"""What a contest at the pure test table waits for, as one viewer's view says it (``ContestView.waiting``)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.common import Actor, Seat
from protocol.events import CreateContest
from server.engine.views import contest_view, viewer_for
from tests.engine.table import GM, Table

Awaited = tuple[tuple[str, ...], str, str]
"""A wait as a test reads it: the awaited seats, who they are in words, and what they are to do."""


def awaited(table: Table, actor: Actor = GM) -> list[Awaited]:
    view = contest_view(table.ruleset, table.contest, viewer_for(actor, table.contest.created.seats))
    return [(tuple(w.seats), w.who, w.doing) for w in view.waiting]


def line(table: Table, actor: Actor = GM) -> list[str]:
    """Each wait as a sentence: "Ann to seal an intent"."""
    return [f"{who} to {doing}" for _, who, doing in awaited(table, actor)]


def named(request: CreateContest, names: dict[str, str] | None = None) -> CreateContest:
    """The contest with each player seat named after its id ("ann" is "Ann"), as the GM types it."""
    seats: Sequence[Seat] = request.seats
    renamed = [
        s if s.role == "gm" else msgspec.structs.replace(s, name=(names or {}).get(s.id, s.id.title())) for s in seats
    ]
    return msgspec.structs.replace(request, seats=renamed)
