"""What a viewer may not receive: sealed payloads of others, hidden view values, the unrevealed dice seed, and the
table talk it may not read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from protocol.patch import Add, Op, Replace, parse_pointer
from protocol.talk import TalkLine, TalkSetting
from server.engine.contest import Contest
from server.engine.ruleset import Viewer
from server.talk import may_read
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


# --- hidden values in what a notice is written from -----------------------------------------------------------
#
# A notice (live, in a welcome's story so far, in a timeline or a replay) is written only from the event as the
# viewer may see it (``server.engine.views.shown_event``), so checking that event checks every line made of it.
# The values a viewer's view hides (the strategy's ``hidden`` pointers, read in the GM's view) must not be in
# it: a hidden text (a rating) nowhere, unless the viewer's own view shows the same text; a hidden number, or how
# much it moved, in a field of its name (``ap``; ``points`` for a move of ``hero_points``) of an event that names
# its owner.


class HiddenValue(msgspec.Struct, frozen=True):
    owner: str | None  # the id of the contestant (or whatever the pointer's parent is) it belongs to
    field: str
    value: Any
    siblings: frozenset[str]  # the other fields of its owner, which a shorter event field never stands for
    change: bool = False  # how much the value moved with the event, not the value


def hidden_values(gm_doc: Any, pointers: Iterable[str]) -> list[HiddenValue]:
    """The values at ``pointers`` (hidden from some viewer) as the GM sees them."""
    out = []
    for pointer in pointers:
        tokens = parse_pointer(pointer)
        value = resolve(gm_doc, tokens)
        if value is None or isinstance(value, bool) or not tokens:
            continue
        parent = resolve(gm_doc, tokens[:-1])
        owner = parent.get("id") if isinstance(parent, dict) else None
        siblings = frozenset(parent) if isinstance(parent, dict) else frozenset()
        out.append(HiddenValue(owner if isinstance(owner, str) else None, tokens[-1], value, siblings))
    return out


def changes(before: list[HiddenValue], after: list[HiddenValue]) -> list[HiddenValue]:
    """How much each hidden number that stays hidden moved: a change tells as much as the value."""
    old = {(h.owner, h.field): h.value for h in before}
    return [
        msgspec.structs.replace(h, value=h.value - old[h.owner, h.field], change=True)
        for h in after
        if isinstance(h.value, int)
        and isinstance(old.get((h.owner, h.field)), int)
        and h.value != old[h.owner, h.field]
    ]


def _leaves(value: Any, key: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, item in value.items():
            yield from _leaves(item, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item, key)
    else:
        yield key, value


def _same_field(key: str, hidden: HiddenValue) -> bool:
    """An event field of the value's name, or (for a change only) the last word of it: ``points`` of a move of
    ``hero_points``. A bare ``points`` is not always hero points (resolution points are ``points`` too), but
    one moving by just as much as the hidden value did tells it."""
    if key == hidden.field:
        return True
    return hidden.change and key not in hidden.siblings and hidden.field.endswith(f"_{key}")


def texts_in(doc: Any) -> set[str]:
    return {v for _, v in _leaves(doc) if isinstance(v, str)}


def carried(
    event: Any, hidden: Iterable[HiddenValue], known: set[str] = frozenset(), public: frozenset[str] = frozenset()
) -> list[str]:
    """The hidden values ``event`` (as shown to a viewer) carries. A hidden text the viewer's own view shows
    too (its own contestant's rating, equal to another's) cannot be traced, and is not; nor is a value in one of
    the event's ``public`` fields (what the rules make public whatever it holds: equal to a hidden value only by
    chance)."""
    leaves = [(k, v) for k, v in _leaves(msgspec.to_builtins(event)) if k not in public]
    texts = {v for _, v in leaves if isinstance(v, str)}
    found = set()
    for h in hidden:
        if h.owner is not None and h.owner not in texts:
            continue
        if isinstance(h.value, str):
            hit = h.value in texts and h.value not in known
        else:
            hit = any(_same_field(k, h) and not isinstance(v, bool) and v == h.value for k, v in leaves)
        if hit:
            found.add(f"{h.owner}'s {h.field} ({h.value!r})")
    return sorted(found)


# --- table talk ------------------------------------------------------------------------------------------------


def talk_secrets(lines: Iterable[TalkLine], principal: str, role: str, setting: TalkSetting) -> set[bytes]:
    """What a follower (its seat, ``~spectator`` or ``~auditor``, and role) must not receive of the table talk: the
    text of every line it may not read (a whisper between others; a spectator, table lines unless the contest
    lets spectators read them). The texts are the caller's, unique enough to be traced in any frame or file."""
    return {line.text.encode() for line in lines if line.text and not may_read(line, principal, role, setting)}
