"""One layout per ruleset: its part of the view (``view["rules"]``) as rich renderables, no JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table as Grid


def shown(value: Any) -> str:
    """A value this seat may not see (None) as ``?``."""
    return "?" if value is None else str(value)


def grid(*columns: str) -> Grid:
    table = Grid(show_edge=False, pad_edge=False, box=None)
    for column in columns:
        table.add_column(column)
    return table


def who(c: dict[str, Any]) -> str:
    """A contestant's name and id, ``*`` when this seat controls it."""
    return f"{c['name']} ({c['id']})" + (" *" if c.get("controlled_by_you") else "")
