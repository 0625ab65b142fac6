"""A Karbon scene: the agent's Fortune, the contest's stats and track, both hands, chips and stacks."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from clients.python.terminal.layouts import grid, heading


def _dice(dice: list[dict[str, Any]]) -> str:
    return " ".join(f"{d['id']}:d{d['sides']}" for d in dice) or "—"


def layout(view: dict[str, Any]) -> list[RenderableType]:
    rules = view["rules"]
    fortune = f"Fortune {rules['fortune']}/{rules['full_fortune']}"
    parts: list[RenderableType] = [heading(view, f"{rules['name']} ({rules['agent']})", rules["phase"], fortune)]
    marks = [f"injuries: {', '.join(rules['injuries'])}"] if rules["injuries"] else []
    marks += [f"conditions: {', '.join(rules['conditions'])}"] if rules["conditions"] else []
    if marks:
        parts.append(Text("; ".join(marks)))
    contest = rules.get("contest")
    if contest is not None:
        parts.append(
            Text(
                f"contest {contest['number']}: {contest['goal']} ({contest['ability']} {contest['level']}) · "
                f"challenge {contest['challenge']} · consequence {contest['consequence']} · peril {contest['peril']}"
                f" · round {contest['round']} · track {''.join(contest['track']) or '—'}"
                + (" · sudden death" if contest["sudden_death"] else "")
            )
        )
    table = grid("side", "hand", "chips", "stack")
    for side, state in rules["sides"].items():
        table.add_row(side, _dice(state["hand"]), str(state["chips"]), str(state["stack"]))
    parts.append(table)
    pool = rules["pool"]
    parts.append(
        Text(f"pool {len(pool)}: {_dice(pool)} · reserve {len(rules['reserve'])} · spent {len(rules['spent'])}")
    )
    if rules.get("all_in") is not None:
        parts.append(Text("the agent is all in" if rules["all_in"] else "the agent plays it safe"))
    if rules["stacking"]:
        parts.append(Text(f"may stack: {', '.join(rules['stacking'])}"))
    for pending in rules["pending"]:
        made = f" ({pending['choice']} chosen)" if pending.get("choice") else ""
        parts.append(Text(f"waiting: the {pending['chooser']} chooses after a {pending['payout']}{made}"))
    outcome = rules.get("last_outcome")
    if outcome is not None:
        parts.append(
            Text(
                f"last contest: {outcome['outcome']} ({outcome['wins']} wins, {outcome['losses']} losses)", style="bold"
            )
        )
    return parts
