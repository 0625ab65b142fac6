"""What the terminal client shows: the contest as readable text with rich (tables, no JSON)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table as Grid
from rich.text import Text

from clients.python import render


def _ap(value: Any) -> str:
    return "?" if value is None else str(value)


def extended(view: dict[str, Any]) -> RenderableType:
    rules = view["rules"]
    parts: list[RenderableType] = []
    head = f"{view['title'] or view['contest']} — {rules['prize']} · round {rules['round']} · {rules['phase']}"
    if rules.get("next_actor"):
        head += f" · next: {rules['next_actor']}"
    if view.get("concluded"):
        head += " · concluded"
    parts.append(Text(head, style="bold"))
    grid = Grid(show_edge=False, pad_edge=False, box=None)
    for column in ("contestant", "ability", "rating", "AP", "hero points", ""):
        grid.add_column(column)
    for c in rules["contestants"]:
        grid.add_row(
            f"{c['name']} ({c['id']})" + (" *" if c["controlled_by_you"] else ""),
            c["ability"],
            _ap(c["rating"]),
            _ap(c["ap"]),
            _ap(c["hero_points"]),
            "out" if c["out"] else "",
        )
    parts.append(grid)
    seal = view.get("seal")
    if seal is not None:
        declared = {d["participant"]: d for d in seal["declared"]}
        waiting = [p for p in seal["expected"] if p not in declared]
        line = f"declaring ({seal['window']}): declared {', '.join(declared) or 'nobody yet'}"
        if waiting:
            line += f"; waiting for {', '.join(waiting)}"
        parts.append(Text(line))
        for participant, d in declared.items():
            if d["payload"] is not None:
                parts.append(Text(f"  your sealed intent for {participant}: {_intent(d['payload'])}"))
    for contestant, intent in rules["intents"].items():
        parts.append(Text(f"  {contestant} intends: {_intent(intent)}"))
    for contestant, bid in rules.get("proposals", {}).items():
        parts.append(Text(f"  the GM proposes bid {bid} for {contestant} (accept {contestant})"))
    exchange = rules.get("exchange")
    if exchange is not None:
        parts.append(
            Text(
                f"exchange {exchange['number']}: {exchange['actor']} ({exchange['actor_level']}, rolled "
                f"{_ap(exchange['actor_face'])}) against {exchange['defender']} ({exchange['defender_level']}, "
                f"rolled {_ap(exchange['defender_face'])}), bid {exchange['bid']}" + _answers(exchange)
            )
        )
    outcome = rules.get("outcome")
    if outcome is not None:
        winner = outcome["winner"] or "nobody"
        parts.append(
            Text(
                f"decided: {outcome['level']} — {winner} wins ({outcome['benefit']} / {outcome['consequence']})",
                style="bold",
            )
        )
    if view.get("seed"):
        parts.append(Text(f"dice seed revealed: {view['seed']}"))
    return Group(*parts)


def _intent(intent: dict[str, Any]) -> str:
    bid = intent.get("bid")
    text = f"“{intent.get('action') or '…'}”, bid {3 if bid is None else bid}"
    if intent.get("kind") and intent["kind"] != "normal":
        text += f", {intent['kind']}"
    return text


RULESETS = {"extended": extended}


def contest(view: dict[str, Any]) -> RenderableType:
    """The contest as this viewer sees it: the ruleset's own layout, or readable text for any other."""
    layout = RULESETS.get(str(view.get("ruleset")))
    if layout is not None:
        try:
            return layout(view)
        except (KeyError, TypeError):
            pass  # a view of another shape: fall back to the generic text
    return Text(render.text(view))


def _answers(exchange: dict[str, Any]) -> str:
    """Whose answer the rolled exchange waits for, and who of them may spend a hero point (as this seat sees)."""
    spend = exchange["hero_points_pending"]
    waiting = list(dict.fromkeys([*exchange.get("answers_pending", []), *spend]))
    text = f"; waiting for {', '.join(waiting)} to let it stand (stand) or spend a hero point" if waiting else ""
    return text + (f"; may spend a hero point: {', '.join(spend)}" if spend else "")
