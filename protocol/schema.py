"""JSON Schema of every wire type, from the msgspec Structs that define them."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from protocol import events, messages, views


def wire_types() -> list[Any]:
    """Every type that crosses the wire or the export, by the name clients know it."""
    return [
        messages.ClientMessage,
        messages.ServerMessage,
        events.Envelope,
        events.Command,
        events.CreateContest,
        views.ContestView,
    ]


def schema() -> dict[str, Any]:
    (refs, components) = msgspec.json.schema_components(wire_types(), ref_template="#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Agon wire protocol",
        "anyOf": list(refs),
        "$defs": components,
    }


def schema_json() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True)
