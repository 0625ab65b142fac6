"""The lines people read for a contest played at a test table: each event's line as the timeline writes it
for a viewer, named by the rule states around the event, and the same line as it reads with no names (ids)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.common import Actor, Seat
from protocol.events import Envelope
from server.engine.contest import Contest, apply, begin
from server.engine.names import Names, Naming, naming
from server.engine.ruleset import Ruleset
from server.engine.timeline import describe
from server.engine.views import shown_event, viewer_for
from tests.engine.table import GM, Table


@dataclass(frozen=True)
class Line:
    event: Any  # the event as the viewer may see it
    named: str  # the line as people read it
    bare: str  # the line with every id left as it is
    naming: Naming  # the names it was read with


def lines(table: Table, actor: Actor = GM) -> list[Line]:
    """Each event of the table's log that ``actor`` is told of, with its line."""
    return told(table.ruleset, table.contest.created.seats, table.log, actor)


def told(rules: Ruleset[Any], seats: Sequence[Seat], log: Sequence[Envelope], actor: Actor = GM) -> list[Line]:
    """Each event of ``log`` that ``actor`` is told of, with its line."""
    viewer = viewer_for(actor, seats)
    contest: Contest[Any] | None = None
    shown: list[Line] = []
    for envelope in log:
        before = contest.rules if contest is not None else None
        contest = begin(rules, envelope) if contest is None else apply(rules, contest, envelope)
        event = shown_event(rules, before if before is not None else contest.rules, envelope, viewer)
        if event is None:
            continue
        named_by = naming(rules, seats, before, contest.rules)
        named = describe(rules, event, envelope.actor, named_by)
        bare = describe(rules, event, envelope.actor, Naming(seats={}, things={}))
        shown.append(Line(event, named, bare, named_by))
    return shown


def _word(ident: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(ident) + r"(?![\w-])")


def ids_in(text: str, names: Names) -> list[str]:
    """The ids (of those whose name differs) that ``text`` shows as whole words, as a reader would spot them."""
    return [i for i, name in names.items() if i != name and _word(i).search(text)]


def assert_named(told: list[Line], names: Names) -> None:
    """Every line shows no id, and names everyone its bare line showed by id."""
    for line in told:
        assert ids_in(line.named, names) == [], line
        for ident in ids_in(line.bare, names):
            assert names[ident] in line.named, (ident, line)


def kinds(told: list[Line]) -> set[str]:
    """The tags of the events the lines are of."""
    return {str(type(line.event).__struct_config__.tag) for line in told}
