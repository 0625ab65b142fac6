"""A Contingency encounter: the zones and who stands in them, the characters, the round's actions.

An action of the round is called by its character's name and its number (``Rook.1``), as it is typed."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text

from clients.python.terminal.layouts import grid, heading, lookup, shown, who


def layout(view: dict[str, Any]) -> list[RenderableType]:
    rules = view["rules"]
    names = lookup(view)
    following = f"next: {names(rules['next_action'])}" if rules.get("next_action") else None
    parts: list[RenderableType] = [heading(view, f"round {rules['round']}", rules["phase"], following)]
    if rules["scene"]:
        parts.append(Text(rules["scene"] + (f" ({rules['foreshadow']})" if rules["foreshadow"] else "")))
    zones = grid("zone", "here", "traits")
    for z in rules["zones"]:
        here = names.each([*z["characters"], *z["things"]]) or "—"
        traits = ", ".join(z["traits"]) + (f" (movement +{z['modifier']})" if z["modifier"] else "")
        if z.get("forced_to"):
            traits += f" (forced to {names(z['forced_to'])})"
        zones.add_row(names(z["id"]), here, traits)
    parts.append(zones)
    characters = grid("character", "zone", "engaged with", "actions", "omens")
    for c in rules["characters"]:
        characters.add_row(
            who(c, names), names(c["zone"]), names.each(c["engaged_with"]), str(c["actions_taken"]), str(c["omens"])
        )
    parts.append(characters)
    for a in rules["actions"]:
        line = f"  {names(a['id'])}: {a['name'] or 'face down'} ({a['type']}) · {a['status']}"
        if a.get("target"):
            line += f" → {names(a['target'])}"
        if a.get("difficulty") is not None:
            line += f" · difficulty {a['difficulty']}"
        if a.get("result") is not None:
            line += f" · {a['result']} ({'success' if a['success'] else 'failure'})"
        parts.append(Text(line))
    rolling = rules.get("rolling")
    if rolling is not None:
        parts.append(
            Text(
                f"{names(rolling['character'])} rolled {rolling['faces']} for {names(rolling['action'])}: take the "
                f"penalty {shown(rolling['penalty'])} (take_penalty)"
            )
        )
    return parts
