"""The conformance law of "whose move": what a view says the contest waits for.

While a contest is not concluded its view waits for something (a concluded one for nothing), names only seats
the contest has, and says who and what in names, never ids: no ``doing`` and no ``who`` holds the id of a
contestant, character, zone, thing or seat whose name differs (the names test of ``tests/rules/*/test_lines.py``).
Whether the awaited seat has a command the contest accepts is checked by each ruleset's
``tests/rules/<name>/test_waiting.py``, which walks the phases and plays that command from that seat.
"""

from __future__ import annotations

from typing import Any

from server.engine.contest import Contest
from server.engine.names import seat_names
from server.engine.ruleset import Ruleset
from server.engine.waiting import SOMEONE
from tests.rules.lines import ids_in


def check_waiting(rules: Ruleset[Any], contest: Contest[Any], doc: dict[str, Any], who: str) -> None:
    waiting = doc["waiting"]
    if contest.concluded is not None:
        assert waiting == [], f"{who}: a concluded contest waits for {waiting}"
        return
    assert waiting, f"{who}: the contest waits for nothing at version {contest.version} ({type(contest.rules)})"
    seats = contest.created.seats
    known = {s.id for s in seats}
    names = {**dict(rules.names(contest.rules)), **{s.id: seat_names(seats).get(s.id, "") for s in seats}}
    for wait in waiting:
        assert set(wait["seats"]) <= known, f"{who}: {wait} names a seat the contest does not have"
        assert wait["doing"].strip(), f"{who}: {wait} says nothing of what it waits for"
        assert wait["who"].strip(), f"{who}: {wait} names nobody"
        assert wait["seats"] or wait["who"] == SOMEONE, f"{who}: {wait} waits for no seat"
        for text in (wait["doing"], wait["who"]):
            shown = ids_in(text, names)
            assert not shown, f"{who}: {text!r} shows the ids {shown}"
