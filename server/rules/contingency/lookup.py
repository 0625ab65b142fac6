"""Zones, characters and things named in a command: by id, or by the name people read (case-insensitive, exact
after trimming). A decision turns the name into the id, and the events store the id.

A name two of them share is refused, and so is a name none has: the refusal keeps the code the unknown id
always had and says which names there are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from protocol.errors import Refused
from protocol.rulesets import contingency as c
from server.rules.contingency import codes
from server.rules.contingency.state import ContingencyState, Planned
from server.rules.contingency.view import TURNED_OVER


@dataclass(frozen=True)
class Kind:
    """What is named, as a sentence says it: "zone" and "zones"."""

    one: str
    many: str


ZONE = Kind("zone", "zones")
CHARACTER = Kind("character", "characters")
THING = Kind("thing", "things")
TARGET = Kind("zone, character or thing", "zones, characters and things")


def pick(typed: str, shown: Mapping[str, str], field: str, code: str, kind: Kind, where: str = "") -> str:
    """The id among ``shown`` (id -> name) that ``typed`` names: the id itself, or the one whose name it is.
    ``where`` narrows the sentence (" in Bank")."""
    if typed in shown:
        return typed
    said = typed.strip()
    if said in shown:
        return said
    wanted = said.casefold()
    found = [ident for ident, name in shown.items() if wanted and name.strip().casefold() == wanted]
    if len(found) == 1:
        return found[0]
    if found:
        raise Refused(
            code,
            f"{field}: {len(found)} {kind.many}{where} are called “{said}”: name one by its id ({', '.join(found)})",
        )
    if not shown:
        raise Refused(code, f"{field}: there is no {kind.one} called “{said}”{where}: there are no {kind.many}{where}")
    choices = sorted((name.strip() or ident for ident, name in shown.items()), key=str.casefold)
    raise Refused(
        code, f"{field}: there is no {kind.one} called “{said}”{where}: the {kind.many}{where} are {', '.join(choices)}"
    )


def zone_names(state: ContingencyState) -> dict[str, str]:
    return {ident: zone.name for ident, zone in state.zones.items()}


def character_names(state: ContingencyState) -> dict[str, str]:
    return {ident: fighter.name for ident, fighter in state.fighters.items()}


def zone(state: ContingencyState, typed: str, field: str, code: str = codes.NO_SUCH_ZONE) -> str:
    return pick(typed, zone_names(state), field, code, ZONE)


def character(state: ContingencyState, typed: str, field: str, code: str = codes.NO_SUCH_CHARACTER) -> str:
    return pick(typed, character_names(state), field, code, CHARACTER)


def target(state: ContingencyState, typed: str, field: str) -> str:
    """Anything on the map: zones, characters and things share one name space."""
    shown = {**zone_names(state), **character_names(state), **{k: t.name for k, t in state.things.items()}}
    return pick(typed, shown, field, codes.NO_SUCH_TARGET, TARGET)


def thing_in(state: ContingencyState, typed: str, where: str, field: str, code: str) -> str:
    """A thing in the zone ``where``."""
    shown = {k: t.name for k, t in state.things.items() if t.zone == where}
    return pick(typed, shown, field, code, THING, f" in {zone_called(state, where)}")


def ends(connections: Sequence[c.Connection], zones: Mapping[str, str], field: str) -> list[c.Connection]:
    """Connections whose ends are named among ``zones`` (id -> name), with the ids at their ends."""
    out = []
    for i, link in enumerate(connections):
        a = pick(link.a, zones, f"{field}[{i}].a", codes.NO_SUCH_ZONE, ZONE)
        b = pick(link.b, zones, f"{field}[{i}].b", codes.NO_SUCH_ZONE, ZONE)
        out.append(link if (a, b) == (link.a, link.b) else c.Connection(a=a, b=b, barrier=link.barrier))
    return out


def zone_called(state: ContingencyState, ident: str) -> str:
    """A zone's name for a sentence (its id when it has none)."""
    found = state.zones.get(ident)
    return found.name if found is not None and found.name.strip() else ident


def character_called(state: ContingencyState, ident: str) -> str:
    found = state.fighters.get(ident)
    return found.name if found is not None and found.name.strip() else ident


def card(state: ContingencyState, planned: Planned, character: str) -> str:
    """An action of the round as everyone may read it, its character called ``character``: "Rook's Strike", or
    only its type while its card is face down ("Rook's face-down Combat action")."""
    if state.mode == "public" or planned.status in TURNED_OVER:
        return f"{character}'s {planned.name}"
    return f"{character}'s face-down {planned.type} action"


def action_called(state: ContingencyState, ident: str) -> str:
    """An action of the round for a sentence anyone may read (its id when the round has no such action)."""
    planned = state.actions.get(ident)
    return ident if planned is None else card(state, planned, character_called(state, planned.character))
