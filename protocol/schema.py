"""JSON Schema and AsyncAPI 3 documents of every wire type, from the msgspec Structs that define them.

``Welcome.view`` is a plain JSON object on the wire (patches apply to it as JSON); both documents type it
as the ``ContestView`` it always is. ``agon schema --write docs`` refreshes the committed copies.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import msgspec

from protocol import events, messages, talk, views

VERSION = "0.1.0"


def wire_types() -> list[Any]:
    """Every type that crosses the wire or the export, by the name clients know it."""
    return [
        messages.ClientMessage,
        messages.ServerMessage,
        events.Envelope,
        events.Command,
        events.CreateContest,
        views.ContestView,
        talk.ExportedLine,  # an export's table talk, after its events
        talk.WithheldLine,
        talk.RevealedSeed,
    ]


def _components(ref_template: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    refs, components = msgspec.json.schema_components(wire_types(), ref_template=ref_template)
    for component in components.values():  # the docstrings' indentation, as every msgspec release leaves it
        if isinstance(component.get("description"), str):
            component["description"] = inspect.cleandoc(component["description"])
    view = ref_template.format(name=views.ContestView.__name__)
    welcome = components[messages.Welcome.__name__]["properties"]
    welcome["view"] = {
        "anyOf": [{"$ref": view}, {"type": "null"}],
        "default": None,
        "description": "the viewer's full view at `version` (absent when resuming from the client's own view)",
    }
    return list(refs), components


def schema() -> dict[str, Any]:
    refs, components = _components("#/$defs/{name}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Agon wire protocol",
        "anyOf": refs,
        "$defs": components,
    }


def schema_json() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False)


def _tag(message: type[msgspec.Struct]) -> str:
    return str(message.__struct_config__.tag)


def _without_discriminators(value: Any) -> Any:
    """AsyncAPI's Schema Object wants ``discriminator`` as a string: drop OpenAPI's object form (the
    ``type`` member's ``enum`` already tells the variants apart)."""
    if isinstance(value, dict):
        return {k: _without_discriminators(v) for k, v in value.items() if k != "discriminator"}
    if isinstance(value, list):
        return [_without_discriminators(v) for v in value]
    return value


def _operation(action: str, title: str, summary: str, kinds: list[type[msgspec.Struct]]) -> dict[str, Any]:
    return {
        "action": action,
        "title": title,
        "summary": f"{summary}: {', '.join(_tag(m) for m in kinds)}",
        "channel": {"$ref": "#/channels/contests"},
        "messages": [{"$ref": f"#/channels/contests/messages/{_tag(m)}"} for m in kinds],
    }


def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3.0 document: one channel (``/ws``), what a client sends and what it receives."""
    _, components = _components("#/components/schemas/{name}")
    client = [m for m in messages.ClientMessage.__args__]
    server = [m for m in messages.ServerMessage.__args__]
    component_messages = {
        _tag(m): {
            "name": _tag(m),
            "title": m.__name__,
            "summary": (m.__doc__ or m.__name__).strip().split("\n")[0],
            "contentType": "application/json",
            "payload": {"$ref": f"#/components/schemas/{m.__name__}"},
        }
        for m in [*client, *server]
    }
    channel = "/ws"
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Agon",
            "version": VERSION,
            "description": (
                "Event-sourced tabletop-RPG contests over one WebSocket. JSON text frames, one message per frame, "
                "tagged by `type`. See docs/protocol.md for the handshake, the order of frames, view_hash, "
                "resume and the error codes."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": "127.0.0.1:8765",
                "protocol": "ws",
                "pathname": "/ws",
                "description": "`agon serve` with its defaults",
            }
        },
        "channels": {
            "contests": {
                "address": channel,
                "title": "Contests",
                "description": "Every contest a connection follows, and its requests, share this one socket.",
                "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in component_messages},
            }
        },
        "operations": {
            "sendClientMessage": _operation("send", "Client to server", "hello first; then any of these", client),
            "receiveServerMessage": _operation("receive", "Server to client", "answers, views and notices", server),
        },
        "components": {"schemas": _without_discriminators(components), "messages": component_messages},
    }


def asyncapi_json() -> str:
    return json.dumps(asyncapi(), indent=2, sort_keys=True, ensure_ascii=False)


GENERATED = {"schema.json": schema_json, "asyncapi.json": asyncapi_json}
"""The committed copies in docs/ and what writes each."""
