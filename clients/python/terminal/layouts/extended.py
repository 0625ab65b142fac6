"""The extended contest and the Hero Wars contest (the same shape): AP, hero points, intents, the exchange."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from clients.python.terminal.layouts import Names, grid, heading, lookup, shown, who


def layout(view: dict[str, Any]) -> list[RenderableType]:
    rules = view["rules"]
    names = lookup(view)
    following = f"next: {names(rules['next_actor'])}" if rules.get("next_actor") else None
    parts: list[RenderableType] = [heading(view, rules["prize"], f"round {rules['round']}", rules["phase"], following)]
    table = grid("contestant", "ability", "rating", "AP", "hero points", "")
    for c in rules["contestants"]:
        out = "out" if c["out"] is True else (c["out"] or "")
        table.add_row(who(c, names), c["ability"], shown(c["rating"]), shown(c["ap"]), shown(c["hero_points"]), out)
    parts.append(table)
    for contestant, intent in rules["intents"].items():
        parts.append(Text(f"  {names(contestant)} intends: {intent_text(intent, names)}"))
    for contestant, bid in rules.get("proposals", {}).items():
        parts.append(Text(f"  the GM proposes bid {bid} for {names(contestant)} (accept {names.typed(contestant)})"))
    shot = rules.get("shot_under_way")
    if shot is not None:
        parts.append(
            Text(f"  {names(shot['shooter'])} takes a parting shot at {names(shot['target'])}, bid {shot['bid']}")
        )
    exchange = rules.get("exchange")
    if exchange is not None:
        parts.append(
            Text(
                f"exchange {exchange['number']}: {names(exchange['actor'])} ({exchange['actor_level']}, rolled "
                f"{shown(exchange['actor_face'])}) against {names(exchange['defender'])} "
                f"({exchange['defender_level']}, rolled {shown(exchange['defender_face'])}), bid {exchange['bid']}"
                + _answers(exchange, names)
            )
        )
    outcome = rules.get("outcome")
    if outcome is not None:
        winner = names(outcome["winner"]) if outcome.get("winner") else "nobody"
        level = f"{outcome['level']} — " if outcome.get("level") else ""
        result = "/".join(str(outcome[k]) for k in ("benefit", "consequence") if outcome.get(k))
        parts.append(Text(f"decided: {level}{winner} wins" + (f" ({result})" if result else ""), style="bold"))
    return parts


def intent_text(intent: dict[str, Any], names: Names) -> str:
    bid = intent.get("bid")
    text = f"“{intent.get('action') or '…'}”, bid {3 if bid is None else bid}"
    if intent.get("kind") and intent["kind"] != "normal":
        text += f", {intent['kind']}"
    if intent.get("targets"):
        text += f", at {names.each(intent['targets'])}"
    return text


def _answers(exchange: dict[str, Any], names: Names) -> str:
    """Whose answer the rolled exchange waits for, and who of them may spend a hero point (as this seat sees)."""
    spend = exchange["hero_points_pending"]
    waiting = list(dict.fromkeys([*exchange.get("answers_pending", []), *spend]))
    text = f"; waiting for {names.each(waiting)} to let it stand (stand) or spend a hero point" if waiting else ""
    return text + (f"; may spend a hero point: {names.each(spend)}" if spend else "")
