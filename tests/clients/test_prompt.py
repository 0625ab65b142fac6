"""The terminal client's prompt, without a terminal: which commands a role is offered in each ruleset, how a
typed line becomes the command, and a bad value as one line naming its field."""

from __future__ import annotations

import pytest

from clients.python.terminal.commands import Spec, commands_for, help_text, parse
from clients.python.terminal.fields import Usage, build
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s


def names(ruleset: str, role: str) -> set[str]:
    return {spec.name for spec in commands_for(ruleset, role)}


def test_a_player_is_offered_the_rulesets_commands_a_player_may_send_and_the_gm_all_of_them() -> None:
    player, gm = names("scored", "player"), names("scored", "gm")
    assert {"declare", "tactic", "roll", "spend_story_point", "keep_story_points", "assist", "join"} <= player
    assert "start_round" not in player and "adjust" not in player and "undo" not in player
    assert {"start_round", "adjust", "confirm", "undo", "conclude"} <= gm
    assert "add_zone" not in names("contingency", "player") and "add_zone" in names("contingency", "gm")
    assert {"declare", "risk", "stack", "choose_break", "sudden_death"} <= names("karbon", "player")
    assert {"settle_tie", "spend_hero_point"} <= names("herowars", "gm")
    # the extended contest keeps its short forms next to every command of its own
    assert {"declare", "spend", "stand", "lend", "delay", "decline_parting_shot"} <= names("extended", "player")
    assert names("karbon", "spectator") == {"help", "view", "log", "quit"}


def spec(ruleset: str, role: str, line: str) -> Spec:
    call = parse(line, commands_for(ruleset, role))
    assert call is not None
    return call.spec


@pytest.mark.parametrize(
    ("kind", "words", "expected"),
    [
        (x.Lend, ["aria", "bors", "2", "rating=14"], x.Lend(lender="aria", target="bors", ap=2, rating="14")),
        (x.Roll, ["1", "10"], x.Roll(faces=[1, 10])),
        (x.Roll, [], x.Roll()),
        (
            x.Adjust,
            ["aria", "-2", "a", "lucky", "break"],
            x.Adjust(contestant="aria", delta=-2, reason="a lucky break"),
        ),
        (x.SetOrder, ["orc", "aria"], x.SetOrder(order=["orc", "aria"])),
        (s.StartRound, ["responder=aria", "ogre"], s.StartRound(initiative="ogre", responder="aria")),
        (k.Risk, ["true", "leap"], k.Risk(all_in=True, move="leap")),
        (k.DrawHands, ["a1,a2", "n1"], k.DrawHands(agent=["a1", "a2"], narrator=["n1"])),
        (c.Connect, ['{"a": "hall", "b": "yard"}'], c.Connect(connection=c.Connection(a="hall", b="yard"))),
    ],
)
def test_words_fill_the_fields_in_order_or_by_name(kind: type, words: list[str], expected: object) -> None:
    assert build(kind, words) == expected


@pytest.mark.parametrize(
    ("kind", "words", "said"),
    [
        (x.ProposeBid, ["aria", "many"], "bid: 'many' is not valid (expected int, got str)"),
        (x.ProposeBid, ["aria"], "bid: missing"),
        (k.Stack, ["sideways", "2"], "side: 'sideways' is not valid"),
        (x.Roll, ["one", "two"], "faces[0]: expected int"),
        (c.Connect, ["{oops"], "connection: '{oops' is not valid JSON"),
        (k.EndTest, ["agent", "narrator"], "too many words"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_field(kind: type, words: list[str], said: str) -> None:
    with pytest.raises(Usage) as refused:
        build(kind, words)
    assert str(refused.value).startswith(said) and "\n" not in str(refused.value)


def test_help_lists_every_command_and_explains_one_with_its_fields() -> None:
    specs = commands_for("karbon", "gm")
    listing = help_text(specs)
    assert "start_contest GOAL ABILITY LEVEL […]" in listing and "sudden_death" in listing
    one = help_text(specs, "stack")
    assert one.splitlines()[0] == "stack SIDE CHIPS"
    assert "chips from hand to its stack" in one and "side: agent|narrator" in one
    assert spec("karbon", "gm", "stack agent 2").kind is k.Stack
