"""One layout per ruleset: its part of the view (``view["rules"]``) as rich renderables, no JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table as Grid
from rich.text import Text


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


def heading(view: dict[str, Any], *facts: str | None) -> Text:
    """The view's first line, in bold: the contest's title (its id when it has none), then the facts given
    (None for one that does not apply now), separated by ``·``."""
    return Text(f"{view['title'] or view['contest']} — " + " · ".join(f for f in facts if f is not None), style="bold")
