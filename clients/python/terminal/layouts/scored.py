"""The scored contest: resolution points against each tally, story points, the round's pair and tactics."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from clients.python.terminal.layouts import grid, heading, lookup, shown, who


def layout(view: dict[str, Any]) -> list[RenderableType]:
    rules = view["rules"]
    names = lookup(view)
    pair = (
        f"{names(rules['initiative'])} (initiative) against {names(rules['responder'])}"
        if rules.get("initiative")
        else None
    )
    parts: list[RenderableType] = [heading(view, rules["prize"], f"round {rules['round']}", rules["phase"], pair)]
    table = grid("contestant", "side", "ability", "rating", "RP", "story points", "score", "")
    for c in rules["contestants"]:
        out = f"out ({c['out']})" if c["out"] else ("" if c["present"] else "not yet in")
        tally = "" if c["tally"] == c["id"] else f" (on {names(c['tally'])}'s tally)"
        table.add_row(
            who(c, names),
            c["side"],
            c["ability"],
            c["rating"],
            f"{c['rp']}{tally}",
            shown(c["story_points"]),
            rules["score"].get(c["id"], ""),
            out,
        )
    parts.append(table)
    for contestant, tactic in rules["tactics"].items():
        parts.append(Text(f"  {names(contestant)}: {tactic.get('tactic', 'none')} “{tactic.get('action') or '…'}”"))
    pending = rules.get("pending")
    if pending is not None:
        first, second = pending["first"], pending["second"]
        line = f"{pending['kind']}: " + " against ".join(
            f"{names(p['contestant']) if p['contestant'] else 'resistance'} rolled {p['face']} on {p['rating']} "
            f"({p['successes']} successes)"
            for p in (first, second)
        )
        if pending["waiting_for"]:
            line += f"; waiting for {names.each(pending['waiting_for'])} (spend_story_point or keep_story_points)"
        parts.append(Text(line))
    last = rules.get("last")
    if last is not None:
        parts.append(Text(f"last: {names.text(last['result'])}"))
    outcome = rules.get("outcome")
    if outcome is not None:
        parts.append(Text(f"decided: the {outcome['winner']} side wins", style="bold"))
    return parts
