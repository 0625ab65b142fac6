"""Any view as readable text: nested members as indented ``key: value`` lines, no JSON punctuation, no
escaped non-ASCII. Used by the terminal client and by ``agon replay``."""

from __future__ import annotations

from typing import Any

INDENT = "  "


def scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _label(key: str) -> str:
    return key.replace("_", " ")


def lines(value: Any, depth: int = 0) -> list[str]:
    """The lines of ``value`` at ``depth`` (members with no value are left out)."""
    pad = INDENT * depth
    out: list[str] = []
    if isinstance(value, dict):
        for key, member in value.items():
            if member is None or member == [] or member == {}:
                continue
            if _is_scalar(member):
                out.append(f"{pad}{_label(key)}: {scalar(member)}")
            elif isinstance(member, list) and all(_is_scalar(m) for m in member):
                out.append(f"{pad}{_label(key)}: {', '.join(scalar(m) for m in member)}")
            else:
                out.append(f"{pad}{_label(key)}:")
                out.extend(lines(member, depth + 1))
    elif isinstance(value, list):
        for item in value:
            inner = lines(item, depth + 1)
            if inner:
                out.append(f"{pad}- {inner[0].lstrip()}")
                out.extend(inner[1:])
    else:
        out.append(f"{pad}{scalar(value)}")
    return out


def text(value: Any) -> str:
    return "\n".join(lines(value))
