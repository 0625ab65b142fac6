"""One layout per ruleset: its part of the view (``view["rules"]``) as rich renderables, no JSON.

Every id a view holds is shown by its name: ``lookup(view)`` reads them once per view (contestants, characters,
zones, things, the Karbon agent and its side, the round's actions) and the layouts ask it for each one."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.table import Table as Grid
from rich.text import Text

WHO = ("contestant", "character", "zone", "thing")
"""The kinds of what an id in a command names (a side is named only where the command takes a side; an action
only where it takes an action)."""

PLURAL = {"contestant": "contestants", "character": "characters", "zone": "zones", "thing": "things"}


def shown(value: Any) -> str:
    """A value this seat may not see (None) as ``?``."""
    return "?" if value is None else str(value)


def grid(*columns: str) -> Grid:
    table = Grid(show_edge=False, pad_edge=False, box=None)
    for column in columns:
        table.add_column(column)
    return table


@dataclass(frozen=True)
class Known:
    """One id of the view, the name people read for it, and what it is."""

    ident: str
    name: str
    kind: str  # contestant, character, zone, thing, side or action


def quoted(word: str) -> str:
    """A word as it is typed at the prompt: in quotes when it has spaces (or a quote or backslash)."""
    if word and not re.search(r"[\s'\"\\]", word):
        return word
    return f'"{word}"' if '"' not in word and "\\" not in word else shlex.quote(word)


def folded(name: str) -> str:
    """A name as names are compared: trimmed, its spaces as one, case-insensitive."""
    return " ".join(name.split()).casefold()


class Names:
    """The view's ids and their names: what the screen shows for an id, and what a person types for it.

    A name two of them share is shown with the id after it, so the two can be told apart (and typed by the id);
    a thing with no name is shown by its id."""

    def __init__(self, known: Iterable[Known]) -> None:
        self.known: dict[str, Known] = {}
        for k in known:
            self.known.setdefault(k.ident, k)
        count: dict[str, int] = {}
        for k in self.known.values():
            if k.kind in WHO:
                count[folded(k.name)] = count.get(folded(k.name), 0) + 1
        self._shared = {name for name, n in count.items() if n > 1}

    def _clear(self, k: Known) -> bool:
        """Whether ``k``'s name alone says which it is."""
        return bool(k.name.strip()) and (k.kind not in WHO or folded(k.name) not in self._shared)

    def __call__(self, ident: str | None) -> str:
        """What the screen shows for ``ident``: its name (its id too when another has that name)."""
        if ident is None:
            return "nobody"
        k = self.known.get(ident)
        if k is None:
            return ident
        if not k.name.strip():
            return ident
        return k.name if self._clear(k) else f"{k.name} ({ident})"

    def each(self, idents: Iterable[str]) -> str:
        """Names joined with commas, as in "Aria, Orc"."""
        return ", ".join(self(i) for i in idents)

    def typed(self, ident: str) -> str:
        """What a person types at the prompt for ``ident``: its name, quoted when it has spaces (the id when the
        name does not say which it is)."""
        k = self.known.get(ident)
        return quoted(k.name.strip() if k is not None and self._clear(k) else ident)

    def of(self, kinds: Iterable[str]) -> list[Known]:
        wanted = set(kinds)
        return [k for k in self.known.values() if k.kind in wanted]

    def text(self, text: str) -> str:
        """A text the rules stored with ids in it, each whole id replaced by what the screen shows for it."""
        idents = sorted((i for i in self.known if i and self(i) != i), key=len, reverse=True)
        if not idents or not text:
            return text
        pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in idents) + r")(?![\w-])")
        return pattern.sub(lambda m: self(m.group(1)), text)


def lookup(view: Mapping[str, Any]) -> Names:
    """The names of one view (a view of any ruleset: each member that has ``id`` and ``name``)."""
    rules = view.get("rules") or {}
    known: list[Known] = []
    for key, kind in (
        ("contestants", "contestant"),
        ("characters", "character"),
        ("zones", "zone"),
        ("things", "thing"),
    ):
        for member in rules.get(key) or []:
            if isinstance(member, dict) and isinstance(member.get("id"), str):
                known.append(Known(member["id"], str(member.get("name") or ""), kind))
    if isinstance(rules.get("agent"), str) and isinstance(rules.get("name"), str):  # Karbon: the agent and its side
        known.append(Known(rules["agent"], rules["name"], "contestant"))
        known.append(Known("agent", rules["name"], "side"))
    characters = {k.ident: k for k in known if k.kind == "character"}
    for action in rules.get("actions") or []:  # Contingency: "<character>.<n>" is called "<its name>.<n>"
        if not isinstance(action, dict) or not isinstance(action.get("id"), str):
            continue
        owner, _, number = action["id"].rpartition(".")
        character = characters.get(owner)
        if character is not None and character.name.strip() and number:
            known.append(Known(action["id"], f"{character.name.strip()}.{number}", "action"))
    return Names(known)


def who(c: dict[str, Any], names: Names) -> str:
    """A contestant (or character) by its name, ``*`` when this seat controls it."""
    return names(c["id"]) + (" *" if c.get("controlled_by_you") else "")


def heading(view: dict[str, Any], *facts: str | None) -> Text:
    """The view's first line, in bold: the contest's title (its id when it has none), then the facts given
    (None for one that does not apply now), separated by ``·``."""
    return Text(f"{view['title'] or view['contest']} — " + " · ".join(f for f in facts if f is not None), style="bold")
