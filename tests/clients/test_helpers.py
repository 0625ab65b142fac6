"""The typed commands of every ruleset: one method per command of the wire types, with the command's fields
as its parameters, sending exactly the command the server reads from the equivalent JSON."""

from __future__ import annotations

import asyncio
import inspect
import json
import typing
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from clients.python import Contingency, Extended, Herowars, Karbon, Scored
from clients.python.join import HELPERS
from clients.python.rulesets.typed import Sends
from clients.python.table import Table
from protocol.codec import decode, encode
from protocol.events import Command, Declare
from protocol.messages import Ack
from protocol.rulesets import RulesetCommand


class Recorder:
    """Stands in for the connection: keeps every command a table sends and acks it."""

    def __init__(self) -> None:
        self.sent: list[Command] = []

    async def command(self, contest: str, command: Command, *, id: str | None = None) -> Ack:
        self.sent.append(command)
        return Ack(id=id or "1", contest=contest, version=len(self.sent))


def sent_by(helper: type[Table], call: Callable[[Any], Awaitable[Ack]]) -> Command:
    recorder = Recorder()
    asyncio.run(call(helper(recorder, "bridge")))  # type: ignore[arg-type]
    [command] = recorder.sent
    return command


def server_reads(wire: dict[str, Any]) -> Command:
    """The command the server decodes from this JSON (protocol's own decoder)."""
    command: Command = decode(json.dumps(wire), Command)  # type: ignore[arg-type]
    return command


def by_ruleset() -> dict[str, list[type[msgspec.Struct]]]:
    kinds: dict[str, list[type[msgspec.Struct]]] = {}
    for kind in typing.get_args(RulesetCommand):
        kinds.setdefault(kind.__struct_config__.tag.partition(".")[0], []).append(kind)
    return kinds


def test_every_ruleset_has_its_helper() -> None:
    assert set(HELPERS) == set(by_ruleset())


@pytest.mark.parametrize("ruleset", sorted(by_ruleset()))
def test_every_command_of_a_ruleset_has_a_method_named_as_its_type(ruleset: str) -> None:
    helper = HELPERS[ruleset]
    for kind in by_ruleset()[ruleset]:
        name = kind.__struct_config__.tag.partition(".")[2]
        method = inspect.getattr_static(helper, name, None)
        assert isinstance(method, Sends), f"{helper.__name__} has no method {name} for {kind.__name__}"
        assert method.kind is kind


def test_a_method_takes_the_fields_of_its_command_and_carries_its_rules_text() -> None:
    lend = Extended(Recorder(), "bridge").lend  # type: ignore[arg-type]
    assert list(inspect.signature(lend).parameters) == ["lender", "target", "ap", "ability", "rating", "faces"]
    assert "lend AP to another on its side" in (lend.__doc__ or "")
    assert lend.__name__ == "lend"
    intent = Extended(Recorder(), "bridge").intent  # type: ignore[arg-type]
    assert list(inspect.signature(intent).parameters)[:3] == ["participant", "action", "bid"]


CASES: list[tuple[type[Table], Callable[[Any], Awaitable[Ack]], dict[str, Any]]] = [
    (Extended, lambda t: t.lend("aria", "bors", 2, rating="14"),
     {"type": "extended.lend", "lender": "aria", "target": "bors", "ap": 2, "rating": "14"}),
    (Extended, lambda t: t.order_by("daring"), {"type": "extended.order_by", "mode": "daring"}),
    (Extended, lambda t: t.grant_hero_points("aria", reason="a fine speech"),
     {"type": "extended.grant_hero_points", "contestant": "aria", "points": 1, "reason": "a fine speech"}),
    (Extended, lambda t: t.let_it_stand("aria"), {"type": "extended.pass_hero_point", "contestant": "aria"}),
    (Extended, lambda t: t.parting_shot("aria", 4, "finish it"),
     {"type": "extended.parting_shot", "contestant": "aria", "bid": 4, "action": "finish it"}),
    (Herowars, lambda t: t.settle_tie(None, loss=2, reason="both bleed"),
     {"type": "herowars.settle_tie", "winner": None, "loss": 2, "reason": "both bleed"}),
    (Herowars, lambda t: t.roll([3, 17]), {"type": "herowars.roll", "faces": [3, 17]}),
    (Scored, lambda t: t.assist("bors", "aria", action="a shout"),
     {"type": "scored.assist", "helper": "bors", "beneficiary": "aria", "action": "a shout"}),
    (Scored, lambda t: t.keep_story_points("aria"), {"type": "scored.keep_story_points", "contestant": "aria"}),
    (Karbon, lambda t: t.stack("agent", 2), {"type": "karbon.stack", "side": "agent", "chips": 2}),
    (Karbon, lambda t: t.sudden_death(), {"type": "karbon.sudden_death"}),
    (Karbon, lambda t: t.choose_glitch("side_swiped", option="dice", dice=["n1"]),
     {"type": "karbon.choose_glitch", "choice": "side_swiped", "option": "dice", "dice": ["n1"]}),
    (Contingency, lambda t: t.move("kim", ["hall", "yard"]),
     {"type": "contingency.move", "character": "kim", "path": ["hall", "yard"]}),
    (Contingency, lambda t: t.set_barrier("hall", "yard", None),
     {"type": "contingency.set_barrier", "a": "hall", "b": "yard", "barrier": None}),
]  # fmt: skip


@pytest.mark.parametrize(("helper", "call", "wire"), CASES, ids=[c[2]["type"] for c in CASES])
def test_a_method_sends_the_command_the_server_reads(
    helper: type[Table], call: Callable[[Any], Awaitable[Ack]], wire: dict[str, Any]
) -> None:
    command = sent_by(helper, call)
    assert command == server_reads(wire)
    assert server_reads(json.loads(encode(command))) == command  # and it survives the wire


@pytest.mark.parametrize(
    ("helper", "call", "wire"),
    [
        (Extended, lambda t: t.intent("aria", "lunge", bid=5, daring="reckless"),
         {"type": "extended.intent", "action": "lunge", "bid": 5, "daring": "reckless"}),
        (Scored, lambda t: t.tactic("aria", "gambit", "overhead"),
         {"type": "scored.tactic", "tactic": "gambit", "action": "overhead"}),
        (Karbon, lambda t: t.risk("aria", True, "leap the gap"),
         {"type": "karbon.risk", "all_in": True, "move": "leap the gap"}),
        (Contingency, lambda t: t.intent("aria", ["Strike", "Dash"]),
         {"type": "contingency.intent", "actions": ["Strike", "Dash"]}),
    ],
)  # fmt: skip
def test_a_declaration_is_sealed_for_its_participant(
    helper: type[Table], call: Callable[[Any], Awaitable[Ack]], wire: dict[str, Any]
) -> None:
    command = sent_by(helper, call)
    assert command == server_reads({"type": "seal.declare", "participant": "aria", "payload": wire})
    assert isinstance(command, Declare)
