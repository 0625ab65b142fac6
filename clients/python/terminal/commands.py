"""The commands typed at the terminal client's prompt: a name, its arguments, its help, and what it sends.

The engine's commands serve every ruleset; each ruleset adds its own (``EXTENDED`` for the extended
contest). Parsing is pure: ``parse`` turns a line into a ``Call`` or raises ``Usage`` with a message."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from clients.python.rulesets.extended import Extended
from clients.python.table import Table
from protocol.messages import Ack


class Usage(ValueError):
    """A line the prompt cannot run: the message says how to write it."""


@dataclass(frozen=True)
class Spec:
    name: str
    arguments: str  # as shown in help, e.g. "CONTESTANT BID [ACTION...]"
    help: str
    run: Callable[[Any, list[str]], Awaitable[Ack]] | None  # None: a local command (help, view, quit)
    gm_only: bool = False


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise Usage(f"{what}: {text!r} is not a whole number") from None


def _need(args: list[str], count: int, spec: str) -> None:
    if len(args) < count:
        raise Usage(f"usage: {spec}")


LOCAL = [
    Spec("help", "[COMMAND]", "list the commands, or explain one", None),
    Spec("view", "", "show the whole contest as you see it", None),
    Spec("log", "[N]", "show the last N lines of the contest's log (default 20)", None),
    Spec("quit", "", "leave (the contest goes on without you)", None),
]


async def _close(table: Table, args: list[str]) -> Ack:
    return await table.close_declarations()


async def _undo(table: Table, args: list[str]) -> Ack:
    return await table.undo()


async def _redo(table: Table, args: list[str]) -> Ack:
    return await table.redo()


async def _rewind(table: Table, args: list[str]) -> Ack:
    _need(args, 1, "rewind VERSION")
    return await table.rewind(_int(args[0], "VERSION"))


async def _conclude(table: Table, args: list[str]) -> Ack:
    return await table.conclude()


ENGINE = [
    Spec("close", "", "reveal the declarations now (missing ones get the default)", _close, gm_only=True),
    Spec("undo", "", "step back to the previous checkpoint", _undo, gm_only=True),
    Spec("redo", "", "re-apply what the last undo removed", _redo, gm_only=True),
    Spec("rewind", "VERSION", "return to an earlier version", _rewind, gm_only=True),
    Spec("conclude", "", "end the contest (server dice: reveals the seed)", _conclude, gm_only=True),
]


# --- extended --------------------------------------------------------------------------------------------


async def _intent(table: Extended, args: list[str]) -> Ack:
    _need(args, 2, "declare CONTESTANT BID [ACTION...]")
    return await table.intent(args[0], " ".join(args[2:]), bid=_int(args[1], "BID"))


async def _roll(table: Extended, args: list[str]) -> Ack:
    if not args:
        return await table.roll()
    if len(args) != 2:
        raise Usage("usage: roll [ACTOR_FACE DEFENDER_FACE]  (faces only with physical dice)")
    faces: list[int | None] = [None if a == "-" else _int(a, "FACE") for a in args]
    return await table.roll(faces)


async def _spend(table: Extended, args: list[str]) -> Ack:
    _need(args, 1, "spend CONTESTANT")
    return await table.spend_hero_point(args[0])


async def _pass(table: Extended, args: list[str]) -> Ack:
    _need(args, 1, "stand CONTESTANT")
    return await table.let_it_stand(args[0])


async def _confirm(table: Extended, args: list[str]) -> Ack:
    return await table.confirm()


async def _order(table: Extended, args: list[str]) -> Ack:
    _need(args, 2, "order CONTESTANT CONTESTANT...")
    return await table.set_order(args)


async def _propose(table: Extended, args: list[str]) -> Ack:
    _need(args, 2, "propose CONTESTANT BID")
    return await table.propose_bid(args[0], _int(args[1], "BID"))


async def _accept(table: Extended, args: list[str]) -> Ack:
    _need(args, 1, "accept CONTESTANT")
    return await table.accept_bid(args[0])


async def _parting(table: Extended, args: list[str]) -> Ack:
    _need(args, 1, "parting CONTESTANT [BID] [ACTION...]")
    bid = _int(args[1], "BID") if len(args) > 1 and args[1].lstrip("-").isdigit() else None
    action = " ".join(args[2:] if bid is not None else args[1:])
    return await table.parting_shot(args[0], action, bid=bid)


async def _adjust(table: Extended, args: list[str]) -> Ack:
    _need(args, 3, "adjust CONTESTANT DELTA REASON...")
    return await table.adjust(args[0], _int(args[1], "DELTA"), " ".join(args[2:]))


EXTENDED = [
    Spec("declare", "CONTESTANT BID [ACTION...]", "declare, sealed, your intent and bid for this round", _intent),
    Spec("roll", "[FACE FACE]", "roll the current exchange (physical dice: the faces, actor's first)", _roll),
    Spec("spend", "CONTESTANT", "spend a hero point: one step up for this exchange", _spend),
    Spec("stand", "CONTESTANT", "let the rolled result stand (no hero point spent)", _pass),
    Spec("pass", "CONTESTANT", "the same as stand", _pass),
    Spec("accept", "CONTESTANT", "accept the bid the GM proposed", _accept),
    Spec("parting", "CONTESTANT [BID] [ACTION...]", "the victor's parting shot", _parting),
    Spec("confirm", "", "apply the rolled exchange now", _confirm, gm_only=True),
    Spec("order", "CONTESTANT...", "who acts first this round", _order, gm_only=True),
    Spec("propose", "CONTESTANT BID", "suggest another bid for a declared action", _propose, gm_only=True),
    Spec("adjust", "CONTESTANT DELTA REASON...", "change a contestant's AP, with a reason", _adjust, gm_only=True),
]

RULESETS: dict[str, list[Spec]] = {"extended": EXTENDED}


def commands_for(ruleset: str, role: str) -> list[Spec]:
    """What this role may type in a contest of this ruleset (a spectator only looks)."""
    if role == "spectator":
        return list(LOCAL)
    acting = [*RULESETS.get(ruleset, []), *ENGINE]
    return [*LOCAL, *(spec for spec in acting if role == "gm" or not spec.gm_only)]


@dataclass(frozen=True)
class Call:
    spec: Spec
    args: list[str]


def parse(line: str, specs: Sequence[Spec]) -> Call | None:
    """The command a line asks for; None for an empty line; Usage for anything else it cannot run."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise Usage(f"cannot read that line: {error}") from None
    if not words:
        return None
    name, args = words[0].lower(), words[1:]
    spec = next((s for s in specs if s.name == name), None)
    if spec is None:
        raise Usage(f"no command {name!r}: type help for the list")
    return Call(spec, args)


def help_text(specs: Sequence[Spec], name: str | None = None) -> str:
    if name is not None:
        spec = next((s for s in specs if s.name == name), None)
        if spec is None:
            return f"no command {name!r}: type help for the list"
        return f"{spec.name} {spec.arguments}".rstrip() + f"\n  {spec.help}"
    width = max(len(f"{s.name} {s.arguments}") for s in specs)
    return "\n".join(f"  {f'{s.name} {s.arguments}':<{width}}  {s.help}" for s in specs)
