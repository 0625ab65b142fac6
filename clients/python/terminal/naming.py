"""Names typed at the prompt, turned into the ids the commands carry.

Wherever a command takes an id (a contestant, a character, a zone, a thing) a person may type its name instead:
case-insensitive, exact after trimming; an id is still taken as it is. A name with spaces is quoted, or typed
as is where its words stand together (``spend Big Orc``). A name nobody has, or one several share, is a
``Usage`` naming the choices. The Karbon agent's name stands for its side (``stack Vera 2``); a Contingency
action of the round is typed as the screen shows it (``Rook.1``); a Karbon die by its kind (``d6``: one of that
kind where the command takes dice from), and physical dice's faces in the order the hands show them."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Union

import msgspec

from clients.python.terminal.fields import Usage
from clients.python.terminal.layouts import PLURAL, WHO, Known, Names, folded, lookup
from clients.python.terminal.layouts.karbon import counted, in_order
from protocol.common import Id
from protocol.rulesets import karbon as k

FREE = frozenset({"giver"})
"""Fields that may name someone outside the contest (an extended gift's giver): an unknown name is sent as typed."""

KINDS: dict[str, tuple[str, ...]] = {
    "zone": ("zone",),
    "zones": ("zone",),
    "path": ("zone",),
    "forced_to": ("zone",),
    "into": ("zone",),
    "character": ("character",),
    "engage": ("character",),
    "reach": ("thing",),
}
"""What a field of this name names (any contestant, character, zone or thing otherwise)."""

_NAMED = re.compile(r"^(?P<name>[A-Za-z_]\w*)=")

PLACES = {
    "pool": "the main pool",
    "reserve": "the reserve",
    "agent": "the agent's hand",
    "narrator": "the narrator's hand",
}


def names_of(doc: Mapping[str, Any] | None) -> Names:
    return lookup(doc or {})


def merge(words: Sequence[str], names: Names) -> list[str]:
    """The words, with those that together spell a name with spaces joined into one (``Big``, ``Orc``; also
    after a field's name: ``target=Big``, ``Orc``)."""
    spelled = sorted(
        {tuple(w.casefold() for w in k.name.split()) for k in names.known.values() if len(k.name.split()) > 1},
        key=len,
        reverse=True,
    )
    out: list[str] = []
    i = 0
    while i < len(words):
        named = _NAMED.match(words[i])
        head = f"{named['name']}=" if named else ""
        first = words[i][len(head) :]
        for parts in spelled:
            run = [first, *words[i + 1 : i + len(parts)]]
            if tuple(w.casefold() for w in run) == parts:
                out.append(head + " ".join(run))
                i += len(parts)
                break
        else:
            out.append(words[i])
            i += 1
    return out


def _choices(found: Sequence[Known], names: Names) -> str:
    by_kind: dict[str, list[str]] = {}
    for known in found:
        by_kind.setdefault(known.kind, []).append(names.typed(known.ident))
    return "; ".join(
        f"the {PLURAL.get(kind, kind)} are {', '.join(sorted(typed, key=str.casefold))}"
        for kind, typed in by_kind.items()
    )


def one(word: str, names: Names, field: str, kinds: Sequence[str] = WHO, strict: bool = True) -> str:
    """The id ``word`` names among ``kinds``: the id itself, else the one whose name it is (Usage when several
    are called so, or, ``strict``, when none is)."""
    among = names.of(kinds)
    if not among or any(known.ident == word for known in among):
        return word
    said = word.strip()
    wanted = folded(said)
    found = [known for known in among if folded(known.name) == wanted]
    if not found:
        found = [known for known in among if known.ident.casefold() == wanted]
    if len(found) == 1:
        return found[0].ident
    if found:
        ids = ", ".join(known.ident for known in found)
        raise Usage(f"{field}: {len(found)} are called “{said}”: type one of them by its id ({ids})")
    if not strict:
        return word
    what = " or ".join(dict.fromkeys(known.kind for known in among))
    raise Usage(f"{field}: no {what} is called “{said}”: {_choices(among, names)}")


def _unwrap(kind: Any) -> tuple[Any, tuple[Any, ...]]:
    return typing.get_origin(kind), typing.get_args(kind)


class Referrer:
    """Turns the names in one command's raw fields into ids, before the command is built (``fields.build``)."""

    def __init__(self, names: Names, rules: Mapping[str, Any], command: type[msgspec.Struct] | None = None) -> None:
        self.names = names
        self.rules = rules
        self.command = command
        self.given: Mapping[str, Any] = {}
        self.used: set[str] = set()  # dice already named in this command

    def __call__(self, given: dict[str, Any]) -> dict[str, Any]:
        if self.command is None:
            return given
        self.given = given
        kinds = {f.name: f.type for f in msgspec.structs.fields(self.command)}
        return {
            name: self.walk(kinds[name], value, name, name, name not in FREE) if name in kinds else value
            for name, value in given.items()
        }

    def walk(self, kind: Any, value: Any, path: str, name: str, strict: bool) -> Any:
        """``value`` (as typed or read from JSON) of a field of type ``kind`` with its names as ids."""
        if kind == Id:
            return one(value, self.names, path, KINDS.get(name, WHO), strict) if isinstance(value, str) else value
        if kind == k.DieId:
            return self._die(value, path, name) if isinstance(value, str) else value
        origin, args = _unwrap(kind)
        if origin is typing.Annotated:
            return self.walk(args[0], value, path, name, strict)
        if origin in (Union, types.UnionType):
            for arm in args:
                if arm is not type(None):
                    changed = self.walk(arm, value, path, name, strict)
                    if changed != value:
                        return changed
            return value
        if origin is Literal:
            return self._literal(value, args)
        if origin is list and isinstance(value, list):
            return [self.walk(args[0], v, f"{path}[{i}]", name, strict) for i, v in enumerate(value)]
        if origin is dict and args and args[0] == k.DieId and name == "faces":
            return self._faces(value, path)
        if origin is dict and isinstance(value, dict):
            return {
                self.walk(args[0], key, path, name, strict): self.walk(args[1], v, f"{path}.{key}", name, strict)
                for key, v in value.items()
            }
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and isinstance(value, dict):
            inner = {f.name: f.type for f in msgspec.structs.fields(kind)}
            return {
                key: v if key == "id" or key not in inner else self.walk(inner[key], v, f"{path}.{key}", key, False)
                for key, v in value.items()
            }
        if kind is str and name == "action" and isinstance(value, str):
            return one(value, self.names, path, ("action",), strict=False)
        return value

    def _literal(self, value: Any, allowed: tuple[Any, ...]) -> Any:
        """A value one of ``allowed``, or the name of one (the Karbon agent's side by the agent's name)."""
        if not isinstance(value, str) or value in allowed:
            return value
        found = [
            known.ident
            for known in self.names.known.values()
            if known.ident in allowed and folded(known.name) == folded(value)
        ]
        return found[0] if len(found) == 1 else value

    # --- Karbon dice ------------------------------------------------------------------------------------

    def _places(self, name: str) -> tuple[str, ...]:
        """Where the dice a field names are taken from."""
        command, given = self.command, self.given
        if command is k.ChooseBreak:
            if name == "reserve":
                return ("reserve",)
            return ("narrator",) if given.get("choice") == "footing" else ("agent",)
        if command is k.ChooseGlitch:
            return ("narrator",)
        if command is k.ChangeChallenge:
            contest = self.rules.get("contest") or {}
            try:
                raising = int(str(given.get("challenge"))) > int(contest.get("challenge", 0))
            except ValueError:
                raising = True
            return ("pool",) if raising else ("narrator",)
        return ("pool",)

    def _dice(self, place: str) -> list[dict[str, Any]]:
        if place in ("agent", "narrator"):
            hand: list[dict[str, Any]] = self.rules["sides"][place]["hand"]
            return hand
        dice: list[dict[str, Any]] = self.rules.get(place) or []
        return dice

    def _die(self, word: str, path: str, name: str) -> str:
        """A die by its id, or by its kind (``d6``): the first of that kind not yet named, where it is taken from."""
        if "sides" not in self.rules:
            return word
        wanted = word.strip().casefold()
        places = self._places(name)
        for place in places:
            for die in self._dice(place):
                if die["id"] == word:
                    self.used.add(word)
                    return word
        if not (wanted.startswith("d") and wanted[1:].isdigit()):
            return word
        for place in places:
            for die in self._dice(place):
                if f"d{die['sides']}" == wanted and die["id"] not in self.used:
                    self.used.add(die["id"])
                    return str(die["id"])
        where = " or ".join(self._where(place) for place in places)
        held = "; ".join(f"{self._where(place)} holds {counted(self._dice(place))}" for place in places)
        raise Usage(f"{path}: no {wanted} is left in {where} ({held})")

    def _where(self, place: str) -> str:
        if place == "agent":
            agent = self.names("agent")
            return PLACES[place] if agent == "agent" else f"{agent}'s hand"
        return PLACES.get(place, place)

    def _faces(self, value: Any, path: str) -> Any:
        """Physical dice's faces: by die id (JSON), or in the order the hands show them (``2,5,3``: the agent's
        dice, then the narrator's, each hand kind by kind as it is counted)."""
        if isinstance(value, dict) or "sides" not in self.rules:
            return value
        typed = value.split(",") if isinstance(value, str) else value
        if not isinstance(typed, list):
            return value
        dice = [*in_order(self._dice("agent")), *in_order(self._dice("narrator"))]
        if len(typed) != len(dice):
            agent, narrator = len(self._dice("agent")), len(self._dice("narrator"))
            raise Usage(
                f"{path}: {len(typed)} faces for {len(dice)} dice: {self._where('agent')} holds {agent}, "
                f"the narrator's {narrator}; give their faces in that order"
            )
        try:
            return {die["id"]: int(face) for die, face in zip(dice, typed, strict=True)}
        except (TypeError, ValueError):
            raise Usage(f"{path}: {value!r} are not whole numbers") from None


def referrer(
    doc: Mapping[str, Any] | None, command: type[msgspec.Struct] | None
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What turns the names typed for ``command`` into ids, in the contest whose view is ``doc``."""
    return Referrer(names_of(doc), (doc or {}).get("rules") or {}, command)
