"""The six JSON Patch operations (RFC 6902) as wire types.

They live apart from ``protocol.patch`` (which re-exports them) because that module is compiled by mypyc
(setup.py), and a class compiled there loses its class keywords: msgspec would see these Structs untagged.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import msgspec

__all__ = ["Add", "Copy", "Json", "Move", "Op", "Remove", "Replace", "Test"]

Json: TypeAlias = Any
"""A plain JSON value: dict[str, Json] | list[Json] | str | int | float | bool | None."""


class Add(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="add"):
    """Insert ``value`` at ``path``: a new object member, an array element (``-`` appends), or the root."""

    path: str
    value: Json


class Remove(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="remove"):
    """Remove the existing value at ``path``."""

    path: str


class Replace(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="replace"):
    """Replace the existing value at ``path`` with ``value``."""

    path: str
    value: Json


class Move(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="move"):
    """Remove the value at ``from`` and add it at ``path``."""

    from_: str = msgspec.field(name="from")
    path: str = msgspec.field()


class Copy(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="copy"):
    """Add a copy of the value at ``from`` at ``path``."""

    from_: str = msgspec.field(name="from")
    path: str = msgspec.field()


class Test(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", tag="test"):
    """Fail the whole patch unless the value at ``path`` equals ``value``."""

    path: str
    value: Json


Op: TypeAlias = Add | Remove | Replace | Move | Copy | Test
