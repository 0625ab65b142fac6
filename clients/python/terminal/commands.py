"""The commands typed at the terminal client's prompt: a name, its arguments, its help, and what it sends.

The engine's commands serve every ruleset. A ruleset's commands come from its typed helper
(``clients.python.join.HELPERS``): every command method there is a prompt command of the same name, its
fields the arguments (``fields.build``), so a new command of a ruleset appears here without new code.
The extended contest keeps a few short forms (``declare aria 5 lunge``). Parsing is pure: ``parse`` turns a
line into a ``Call`` or raises ``Usage`` with a message. Wherever a command takes an id, the name people read
for it is taken too (``naming``): it is turned into the id when the command is run, against the view then."""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from clients.python.join import HELPERS
from clients.python.rulesets.extended import Extended
from clients.python.rulesets.typed import Declares, Sends, commands, declaration
from clients.python.table import Table
from clients.python.terminal.fields import Usage, build, describe, usage
from clients.python.terminal.naming import merge, names_of, one, referrer
from protocol.messages import Ack

__all__ = ["Call", "Spec", "Usage", "commands_for", "help_text", "parse"]


@dataclass(frozen=True)
class Spec:
    name: str
    arguments: str  # as shown in help, e.g. "CONTESTANT BID [ACTION...]"
    help: str
    run: Callable[[Any, list[str]], Awaitable[Ack]] | None  # None: a local command (help, view, quit)
    gm_only: bool = False
    kind: type[msgspec.Struct] | None = None  # the command (or declaration) type it builds, if any


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
    Spec("who", "", "who is at the table now (and who is away)", None),
    Spec("quit", "", "leave (the contest goes on without you)", None),
]

READ_TALK = [Spec("talk", "[N]", "show the last N lines of the table talk you may read (default 20)", None)]
TALK = [
    Spec("say", "TEXT...", "say it to the whole table; say /roll 2d6+1 to hit rolls dice", None),
    Spec("whisper", "NAME TEXT...", "say it to one seat only: a player to the GM, the GM to a player", None),
    *READ_TALK,
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


# --- any ruleset: its helper's commands, typed as their fields -------------------------------------------


def _first_line(doc: str | None) -> str:
    line = (doc or "").strip().split("\n\n")[0].replace("\n", " ")
    return line.replace("``", "")


def _words(table: Table, args: list[str]) -> list[str]:
    """The words typed, a name with spaces typed as is joined into one word."""
    return merge(args, names_of(table.mirror.doc))


def _sends(method: Sends[Any]) -> Spec:
    kind: type[msgspec.Struct] = method.kind  # type: ignore[assignment]

    async def run(table: Table, args: list[str]) -> Ack:
        return await table.send(build(kind, _words(table, args), referrer(table.mirror.doc, kind)))

    return Spec(method.name, usage(kind), _first_line(method.__doc__), run, method.gm_only, kind)


def _declares(method: Declares[Any], name: str) -> Spec:
    kind: type[msgspec.Struct] = method.kind  # type: ignore[assignment]

    async def run(table: Table, args: list[str]) -> Ack:
        if not args:
            raise Usage(f"usage: {name} PARTICIPANT {usage(kind)}".rstrip())
        words = _words(table, args)
        participant = one(words[0], names_of(table.mirror.doc), "participant")
        return await table.declare(participant, build(kind, words[1:], referrer(table.mirror.doc, kind)))

    return Spec(name, f"PARTICIPANT {usage(kind)}".rstrip(), _first_line(method.__doc__), run, kind=kind)


def typed(helper: type[Table]) -> list[Spec]:
    """The prompt commands of a ruleset's helper: its declaration (also as ``declare``), then its commands."""
    specs: list[Spec] = []
    sealed = declaration(helper)
    if sealed is not None:
        specs += [_declares(sealed, "declare"), _declares(sealed, sealed.name)]
    return specs + [_sends(method) for method in commands(helper)]


# --- extended: short forms ------------------------------------------------------------------------------


def _contestants(table: Extended, args: list[str], count: int, spec: str) -> list[str]:
    """The words typed, at least ``count`` of them, with the first ``count`` turned from names into ids."""
    words = _words(table, args)
    _need(words, count, spec)
    names = names_of(table.mirror.doc)
    return [one(word, names, "contestant") for word in words[:count]] + words[count:]


async def _intent(table: Extended, args: list[str]) -> Ack:
    words = _contestants(table, args, 1, "declare CONTESTANT BID [ACTION...]")
    _need(words, 2, "declare CONTESTANT BID [ACTION...]")
    return await table.intent(words[0], " ".join(words[2:]), bid=_int(words[1], "BID"))


def _contestant(table: Extended, args: list[str], spec: str) -> str:
    """The one contestant a command takes: all the words typed are its name (or its id)."""
    _need(args, 1, spec)
    return one(" ".join(args), names_of(table.mirror.doc), "contestant")


async def _spend(table: Extended, args: list[str]) -> Ack:
    return await table.spend_hero_point(_contestant(table, args, "spend CONTESTANT"))


async def _pass(table: Extended, args: list[str]) -> Ack:
    return await table.let_it_stand(_contestant(table, args, "stand CONTESTANT"))


async def _order(table: Extended, args: list[str]) -> Ack:
    _need(args, 2, "order CONTESTANT CONTESTANT...")
    return await table.set_order(_contestants(table, args, len(_words(table, args)), "order CONTESTANT..."))


async def _propose(table: Extended, args: list[str]) -> Ack:
    words = _contestants(table, args, 1, "propose CONTESTANT BID")
    _need(words, 2, "propose CONTESTANT BID")
    return await table.propose_bid(words[0], _int(words[1], "BID"))


async def _accept(table: Extended, args: list[str]) -> Ack:
    return await table.accept_bid(_contestant(table, args, "accept CONTESTANT"))


async def _parting(table: Extended, args: list[str]) -> Ack:
    words = _contestants(table, args, 1, "parting CONTESTANT [BID] [ACTION...]")
    bid = _int(words[1], "BID") if len(words) > 1 and words[1].lstrip("-").isdigit() else None
    action = " ".join(words[2:] if bid is not None else words[1:])
    return await table.parting_shot(words[0], bid, action)


EXTENDED = [
    Spec("declare", "CONTESTANT BID [ACTION...]", "declare, sealed, your intent and bid for this round", _intent),
    Spec("spend", "CONTESTANT", "spend a hero point: one step up for this exchange", _spend),
    Spec("stand", "CONTESTANT", "let the rolled result stand (no hero point spent)", _pass),
    Spec("pass", "CONTESTANT", "the same as stand", _pass),
    Spec("accept", "CONTESTANT", "accept the bid the GM proposed", _accept),
    Spec("parting", "CONTESTANT [BID] [ACTION...]", "the victor's parting shot", _parting),
    Spec("order", "CONTESTANT...", "who acts first this round", _order, gm_only=True),
    Spec("propose", "CONTESTANT BID", "suggest another bid for a declared action", _propose, gm_only=True),
]

SHORT: dict[str, list[Spec]] = {"extended": EXTENDED}
"""Short forms a ruleset keeps besides its typed commands (a short form wins over a typed one of its name)."""


def commands_for(ruleset: str, role: str) -> list[Spec]:
    """What this role may type in a contest of this ruleset (a spectator only looks)."""
    if role == "spectator":
        return [*LOCAL, *READ_TALK]
    short = SHORT.get(ruleset, [])
    helper = HELPERS.get(ruleset)
    full = [s for s in typed(helper) if s.name not in {t.name for t in short}] if helper is not None else []
    acting = [*short, *full, *ENGINE]
    return [*LOCAL, *TALK, *(spec for spec in acting if role == "gm" or not spec.gm_only)]


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
        fields = describe(spec.kind) if spec.kind is not None and spec.run is not _intent else []
        more = "".join(f"\n    {line}" for line in fields)
        tip = (
            "\n  words fill the fields in order; or write field=value; a list: a,b or the last words" if fields else ""
        )
        return f"{spec.name} {spec.arguments}".rstrip() + f"\n  {spec.help}" + more + tip
    shown = [(f"{s.name} {_brief(s.arguments)}".rstrip(), s.help) for s in specs]
    width = max(len(usage) for usage, _ in shown)
    return "\n".join(f"  {usage:<{width}}  {help}" for usage, help in shown) + "\n  help COMMAND: its fields"


def _brief(arguments: str) -> str:
    """The arguments of a list line: the required ones, then ``[…]`` for all the optional ones."""
    words = arguments.split()
    required = [w for w in words if not w.startswith("[") or not w.endswith("=…]")]
    return " ".join(required + (["[…]"] if len(required) < len(words) else []))
