"""A Karbon scene: the agent's Fortune, the contest's stats and track, both hands, chips and stacks.

Dice are said as a table says them: by their kind, how many of each ("2 d8 and a d10"), and once rolled the face
each shows ("d6 showing 5")."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from clients.python.terminal.layouts import Names, grid, heading, lookup


def side(names: Names, which: str) -> str:
    """A side as people say it: the agent by its name, "the narrator"."""
    said = names(which)
    return f"the {which}" if said == which else said


def in_order(dice: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dice in the order ``counted`` says them: kind by kind, each kind where it first comes."""
    kinds = list(dict.fromkeys(d["sides"] for d in dice))
    return sorted(dice, key=lambda d: kinds.index(d["sides"]))


def counted(dice: list[dict[str, Any]]) -> str:
    """How many dice of each kind, as a table counts them: "3 d6 and a d10"."""
    counts: dict[str, int] = {}
    for die in dice:
        counts[f"d{die['sides']}"] = counts.get(f"d{die['sides']}", 0) + 1
    said = [f"a {kind}" if n == 1 else f"{n} {kind}" for kind, n in counts.items()]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said) or "no dice"


def faces(rules: dict[str, Any]) -> dict[str, int]:
    """The face each die of the hands shows, in the test after the round's roll."""
    roll = rules.get("last_roll")
    if roll is None or rules["phase"] != "test":
        return {}
    return {d["die"]: d["face"] for d in [*roll["agent"], *roll["narrator"]]}


def hand(dice: list[dict[str, Any]], shown: dict[str, int]) -> str:
    """A hand: each die with its face once rolled ("d6 showing 5, d8 showing 2"), else how many of each kind."""
    if dice and all(d["id"] in shown for d in dice):
        return ", ".join(f"d{d['sides']} showing {shown[d['id']]}" for d in dice)
    return counted(dice)


def layout(view: dict[str, Any]) -> list[RenderableType]:
    rules = view["rules"]
    names = lookup(view)
    fortune = f"Fortune {rules['fortune']}/{rules['full_fortune']}"
    parts: list[RenderableType] = [heading(view, names(rules["agent"]), rules["phase"], fortune)]
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
    shown = faces(rules)
    table = grid("side", "hand", "chips", "stack")
    for which, state in rules["sides"].items():
        table.add_row(names(which), hand(state["hand"], shown), str(state["chips"]), str(state["stack"]))
    parts.append(table)
    pool = rules["pool"]
    parts.append(
        Text(f"pool {len(pool)}: {counted(pool)} · reserve {len(rules['reserve'])} · spent {len(rules['spent'])}")
    )
    if rules.get("all_in") is not None:
        agent = side(names, "agent")
        parts.append(Text(f"{agent} is all in" if rules["all_in"] else f"{agent} plays it safe"))
        if view.get("dice") == "physical" and rules["phase"] == "ready" and contest is not None:
            extra = (" risk=…,…,…" if rules["all_in"] else "") + (" peril=…" if contest["peril"] else "")
            parts.append(
                Text(f"to roll: roll the faces of {agent}'s dice, then the narrator's, as shown: roll …,…{extra}")
            )
    if rules["stacking"]:
        parts.append(Text(f"may stack: {', '.join(side(names, s) for s in rules['stacking'])}"))
    for pending in rules["pending"]:
        made = f" ({pending['choice']} chosen)" if pending.get("choice") else ""
        parts.append(Text(f"waiting: {side(names, pending['chooser'])} chooses after a {pending['payout']}{made}"))
    outcome = rules.get("last_outcome")
    if outcome is not None:
        parts.append(
            Text(
                f"last contest: {outcome['outcome']} ({outcome['wins']} wins, {outcome['losses']} losses)", style="bold"
            )
        )
    return parts
