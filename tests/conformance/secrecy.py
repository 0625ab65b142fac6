"""What a viewer may not receive: sealed payloads of others, hidden view values, the unrevealed dice seed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from protocol.patch import Add, Op, Replace, parse_pointer
from server.engine.contest import Contest
from server.engine.ruleset import Viewer
from tests.conformance.driver import SEED
from tests.conformance.kit import SEALED


def traced(payload: Any) -> set[str]:
    """The traceable sealed strings inside a declaration payload."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and value.startswith(SEALED):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(msgspec.to_builtins(payload))
    return found


def entitled(viewer: Viewer, participant: str) -> bool:
    return viewer.omniscient or viewer.controls(participant)


def secrets_for(contest: Contest[Any], viewer: Viewer, extra: Iterable[tuple[str, Any]] = ()) -> set[bytes]:
    """What this viewer must not receive now: others' unrevealed declarations and the unrevealed seed."""
    out: set[bytes] = set()
    open_ = [(d.participant, d.payload) for d in contest.declared.values()]
    for participant, payload in [*open_, *extra]:
        if payload is not None and not entitled(viewer, participant):
            out |= {s.encode() for s in traced(payload)}
    if contest.created.dice == "server" and contest.concluded is None and not viewer.omniscient:
        out.add(SEED.hex().encode())
    return out


def leaked(data: bytes, secrets: set[bytes]) -> list[bytes]:
    return [s for s in secrets if s in data]


def resolve(doc: Any, tokens: list[str]) -> Any:
    """The value at ``tokens`` inside ``doc``, or None when it is absent."""
    for token in tokens:
        if isinstance(doc, dict):
            doc = doc.get(token)
        elif isinstance(doc, list) and token.isdigit() and int(token) < len(doc):
            doc = doc[int(token)]
        else:
            return None
    return doc


def hidden_in_view(doc: Any, pointers: Iterable[str]) -> list[str]:
    return [p for p in pointers if resolve(doc, parse_pointer(p)) is not None]


def hidden_in_patch(ops: list[Op], pointers: Iterable[str]) -> list[str]:
    """Hidden pointers whose value some add or replace op carries."""
    bad = []
    for pointer in pointers:
        target = parse_pointer(pointer)
        for op in ops:
            if not isinstance(op, Add | Replace):
                continue
            path = parse_pointer(op.path)
            if target[: len(path)] == path and resolve(op.value, target[len(path) :]) is not None:
                bad.append(f"{op.path} carries {pointer}")
    return bad
