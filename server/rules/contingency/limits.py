"""What one table can hold: a battle map a GM keeps in view, not an atlas. Every view shows the whole map, the
range between every two characters and the round's actions, and every seat's view is built, encoded and diffed
at each command, so these bounds (``protocol.rulesets.contingency``) keep a command's cost within a frame's
budget (docs/rules/contingency.md, "Table limits")."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import Refused
from protocol.rulesets import contingency as c
from protocol.rulesets.contingency import (
    MAX_ACTIONS,
    MAX_CHARACTERS,
    MAX_CONNECTIONS,
    MAX_ENVIRONMENTAL,
    MAX_INTENT,
    MAX_ROUND_ACTIONS,
    MAX_SKILLS,
    MAX_THINGS,
    MAX_TRAITS,
    MAX_ZONES,
)
from server.rules.contingency import codes
from server.rules.contingency.state import ContingencyState

__all__ = [
    "MAX_ACTIONS",
    "MAX_CHARACTERS",
    "MAX_CONNECTIONS",
    "MAX_ENVIRONMENTAL",
    "MAX_INTENT",
    "MAX_ROUND_ACTIONS",
    "MAX_SKILLS",
    "MAX_THINGS",
    "MAX_TRAITS",
    "MAX_ZONES",
    "check_counts",
    "check_environmental",
    "check_grown",
    "check_hand",
    "check_performed",
    "check_skills",
]


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


def check_skills(character: c.Character, field: str) -> None:
    """A character's sheet holds at most ``MAX_SKILLS`` attribute and skill pairs."""
    if len(character.skills) > MAX_SKILLS:
        raise Refused(codes.BAD_DICE, f"{field}.skills: a character has dice for at most {MAX_SKILLS} skills")


def check_hand(cards: Sequence[str], code: str, field: str) -> None:
    """A character's hand holds at most ``MAX_ACTIONS`` action cards."""
    if len(cards) > MAX_ACTIONS:
        raise Refused(code, f"{field}: a character holds at most {MAX_ACTIONS} action cards")


def check_performed(state: ContingencyState, character: str) -> None:
    """A round holds at most ``MAX_ROUND_ACTIONS`` actions of one character (announced, triggered and instant
    together), and at most that many for each of the characters a table holds, however many were removed and
    added during the round: a new one beyond is refused."""
    mine = sum(1 for p in state.actions.values() if p.character == character)
    if mine >= MAX_ROUND_ACTIONS:
        raise Refused(codes.TABLE_FULL, f"character: at most {MAX_ROUND_ACTIONS} actions of one character a round")
    if len(state.actions) >= MAX_ROUND_ACTIONS * MAX_CHARACTERS:
        raise Refused(codes.TABLE_FULL, f"action: a round holds at most {MAX_ROUND_ACTIONS * MAX_CHARACTERS} actions")


def check_environmental(state: ContingencyState) -> None:
    if len(state.environmental) >= MAX_ENVIRONMENTAL:
        raise Refused(codes.TABLE_FULL, f"text: at most {MAX_ENVIRONMENTAL} environmental actions a round")
