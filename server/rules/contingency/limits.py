"""What one table can hold: a battle map a GM keeps in view, not an atlas. Every view shows the whole map
and the range between every two characters, so these bounds keep a view small and quick to build."""

from __future__ import annotations

from protocol.errors import Refused
from server.rules.contingency import codes
from server.rules.contingency.state import ContingencyState

MAX_ZONES = 64
MAX_CHARACTERS = 64
MAX_CONNECTIONS = 256
MAX_THINGS = 64
MAX_TRAITS = 32  # per zone
MAX_ACTIONS = 64  # the table's action cards (and so any character's hand)
MAX_SKILLS = 32  # attribute and skill pairs on one character's sheet


def check_counts(
    zones: int, characters: int, connections: int, things: int, code: str, before: ContingencyState | None = None
) -> None:
    """Refuse a map over the bounds; a count that did not grow (``before``) is never refused."""
    counts = (
        ("zones", zones, MAX_ZONES, len(before.zones) if before else 0),
        ("characters", characters, MAX_CHARACTERS, len(before.fighters) if before else 0),
        ("connections", connections, MAX_CONNECTIONS, len(before.connections) if before else 0),
        ("things", things, MAX_THINGS, len(before.things) if before else 0),
    )
    for what, count, most, was in counts:
        if count > most and count > was:
            raise Refused(code, f"{what}: a table holds at most {most} {what}")


def check_grown(before: ContingencyState, after: ContingencyState) -> None:
    """A landscape change that would take the map over its bounds is refused."""
    check_counts(
        len(after.zones), len(after.fighters), len(after.connections), len(after.things), codes.TABLE_FULL, before
    )
    for zone in after.zones.values():
        was = before.zones.get(zone.id)
        if len(zone.traits) > MAX_TRAITS and len(zone.traits) > (len(was.traits) if was else 0):
            raise Refused(codes.TABLE_FULL, f"traits: a zone has at most {MAX_TRAITS} traits")
