"""What the terminal client shows: the contest as readable text with rich (tables, no JSON).

Each ruleset has its layout (``layouts.<name>``); the sealed declarations and the revealed seed are the
engine's and shown alike for all. A view no layout can read is shown as tidy ``key: value`` text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from clients.python import render
from clients.python.terminal.layouts import Names, contingency, extended, karbon, lookup, scored
from clients.python.turn import my_move, whose_move

RULESETS: dict[str, Callable[[dict[str, Any]], list[RenderableType]]] = {
    "extended": extended.layout,
    "herowars": extended.layout,
    "scored": scored.layout,
    "karbon": karbon.layout,
    "contingency": contingency.layout,
}


def contest(view: dict[str, Any], seat: str | None = None) -> RenderableType:
    """The contest as this viewer sees it: whose move it is (when the viewer's ``seat`` is given: "Your move: …"
    for it, "Waiting for … to …" otherwise), then the ruleset's own layout, or readable text for any other."""
    top = whose(view, seat) if seat is not None else []
    layout = RULESETS.get(str(view.get("ruleset")))
    if layout is not None:
        try:
            parts = layout(view)
            if view.get("concluded"):
                parts.append(Text("the contest is concluded", style="bold"))
            return Group(*top, *parts, *_engine(view))
        except (KeyError, TypeError, AttributeError):
            pass  # a view of another shape: fall back to the generic text
    return Group(*top, Text(render.text(view)))


def whose(view: dict[str, Any], seat: str | None) -> list[RenderableType]:
    """The "whose move" line at the top of the screen, bold when it is this seat's move."""
    line = whose_move(view, seat)
    if not line or view.get("concluded"):
        return []
    return [Text(line, style="bold reverse" if my_move(view, seat) else "bold")]


def _engine(view: dict[str, Any]) -> list[RenderableType]:
    parts: list[RenderableType] = []
    seal = view.get("seal")
    if seal is not None:
        names = lookup(view)
        declared = {d["participant"]: d for d in seal["declared"]}
        waiting = [p for p in seal["expected"] if p not in declared]
        line = f"declaring ({seal['window']}): declared {names.each(declared) or 'nobody yet'}"
        if waiting:
            line += f"; waiting for {names.each(waiting)}"
        parts.append(Text(line))
        for participant, d in declared.items():
            if d["payload"] is not None:
                kind, text = _payload(d["payload"], names)
                parts.append(Text(f"  your sealed {kind} for {names(participant)}: {text}"))
    if view.get("seed"):
        parts.append(Text(f"dice seed revealed: {view['seed']}"))
    return parts


def _payload(payload: dict[str, Any], names: Names) -> tuple[str, str]:
    """A sealed declaration's kind (``intent``, ``tactic``, ``risk``) and its content in words."""
    kind = str(payload.get("type", "")).rpartition(".")[2] or "declaration"
    if kind == "intent" and "bid" in payload:
        return kind, extended.intent_text(payload, names)
    shown = [
        f"{k.replace('_', ' ')} {_words(v)}" for k, v in payload.items() if k != "type" and v not in (None, "", [])
    ]
    return kind, ", ".join(shown) or "—"


def _words(value: Any) -> str:
    return ", ".join(map(render.scalar, value)) if isinstance(value, list) else render.scalar(value)
