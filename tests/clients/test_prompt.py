"""The terminal client's prompt, without a terminal: which commands a role is offered in each ruleset, how a
typed line becomes the command, a bad value as one line naming its field, and names typed where ids are taken
(an unknown or shared name as one line naming the choices)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

from clients.python.join import HELPERS
from clients.python.terminal.commands import Spec, commands_for, help_text, parse
from clients.python.terminal.fields import Usage, build
from protocol.codec import encode
from protocol.common import Actor
from protocol.events import Declare
from protocol.messages import Ack
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
from server.engine.contest import Contest
from server.engine.ruleset import Ruleset
from server.engine.views import contest_view, viewer_for
from tests.clients.test_layouts import ambush, contingency_face_down
from tests.rules.karbon.table import Table as KarbonTable

GM = Actor("gm", "gm")


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
    assert names("karbon", "spectator") == {"help", "view", "log", "who", "quit", "talk"}  # a spectator reads talk
    assert {"say", "whisper", "talk"} <= player and {"say", "whisper"} <= gm


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


# --- names typed where ids are taken ----------------------------------------------------------------------


def view_of(rules: Ruleset[Any], contest: Contest[Any], actor: Actor = GM) -> dict[str, Any]:
    """The view ``actor``'s terminal holds, as the JSON the client receives."""
    doc: dict[str, Any] = json.loads(encode(contest_view(rules, contest, viewer_for(actor, contest.created.seats))))
    return doc


class Recorder:
    """A client that records the commands a prompt command sends, against a fixed view."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.mirrors = {"c": SimpleNamespace(doc=doc)}
        self.sent: list[Any] = []

    async def command(self, contest: str, command: Any, *, id: str | None = None) -> Ack:
        self.sent.append(command)
        return Ack(id="a", contest=contest, version=len(self.sent))


def sent(doc: dict[str, Any], ruleset_name: str, line: str, role: str = "gm") -> Any:
    """What typing ``line`` at the prompt sends, in the contest whose view is ``doc``."""
    call = parse(line, commands_for(ruleset_name, role))
    assert call is not None and call.spec.run is not None
    client = Recorder(doc)
    helper = HELPERS[ruleset_name]
    asyncio.run(call.spec.run(helper(client, "c"), call.args))  # type: ignore[arg-type]
    [command] = client.sent
    return command


def refused(doc: dict[str, Any], ruleset_name: str, line: str) -> str:
    with pytest.raises(Usage) as said:
        sent(doc, ruleset_name, line)
    return str(said.value)


def test_a_name_is_typed_where_an_id_is_taken_case_insensitive_quoted_or_as_is() -> None:
    doc = view_of(ambush().rules, ambush().contest)
    assert sent(doc, "extended", "spend_hero_point grisk") == x.SpendHeroPoint(contestant="g7")
    assert sent(doc, "extended", 'spend "aria vance"') == x.SpendHeroPoint(contestant="p1")
    assert sent(doc, "extended", "spend  Aria  Vance ") == x.SpendHeroPoint(contestant="p1")
    assert sent(doc, "extended", "accept Aria Vance") == x.AcceptBid(contestant="p1")
    assert sent(doc, "extended", "declare Aria Vance 5 lunge at Grisk") == Declare(
        participant="p1", payload=x.Intent(action="lunge at Grisk", bid=5)
    )
    assert sent(doc, "extended", "intent grisk bid=4 targets=Aria Vance") == Declare(
        participant="g7", payload=x.Intent(bid=4, targets=["p1"])
    )
    assert sent(doc, "extended", "order Grisk o2 'Aria Vance' o1") == x.SetOrder(order=["g7", "o2", "p1", "o1"])
    # an id is taken as it is; and the free text of a field is never read as a name
    assert sent(doc, "extended", "lend p1 GRISK 2") == x.Lend(lender="p1", target="g7", ap=2)
    assert sent(doc, "extended", "adjust grisk -2 Aria Vance tripped him") == x.Adjust(
        contestant="g7", delta=-2, reason="Aria Vance tripped him"
    )
    # a gift's giver is someone outside the contest: sent as typed
    assert sent(doc, "extended", "gift Mother 14 Aria Vance 3").giver == "Mother"


def test_an_unknown_or_shared_name_is_one_sentence_naming_the_choices() -> None:
    doc = view_of(ambush().rules, ambush().contest)
    said = refused(doc, "extended", "spend nobody")
    assert said == 'contestant: no contestant is called “nobody”: the contestants are "Aria Vance", Grisk, o1, o2'
    said = refused(doc, "extended", "spend_hero_point orc")
    assert said == "contestant: 2 are called “orc”: type one of them by its id (o1, o2)"
    assert refused(doc, "extended", "order Grisk Nobody").startswith("contestant: no contestant is called “Nobody”")
    assert refused(doc, "extended", "lend p1 Gandalf 2").startswith("target: no contestant is called “Gandalf”")


def test_karbon_sides_by_the_agents_name_and_dice_by_their_kind() -> None:
    table = KarbonTable()
    table.do(GM, k.StartContest(goal="slip past", ability="Stealth", level=3, challenge=2, consequence=3))
    doc = view_of(table.ruleset, table.contest)
    pool = {d["id"]: d["sides"] for d in doc["rules"]["pool"]}
    drawn = sent(doc, "karbon", "draw_hands d6,d6,D8 d6,d10")
    assert [pool[d] for d in drawn.agent] == [6, 6, 8] and [pool[d] for d in drawn.narrator] == [6, 10]
    assert len({*drawn.agent, *drawn.narrator}) == 5  # five distinct dice of the pool
    assert sent(doc, "karbon", "draw_hands d6-1,d6-2,d8-1 d6-3,d10-1") == k.DrawHands(
        agent=["d6-1", "d6-2", "d8-1"], narrator=["d6-3", "d10-1"]
    )
    assert refused(doc, "karbon", "draw_hands d6,d12 d8").startswith("agent[1]: no d12 is left in the main pool")
    assert sent(doc, "karbon", "stack vera 2") == k.Stack(side="agent", chips=2)
    assert sent(doc, "karbon", "end_test narrator") == k.EndTest(side="narrator")
    assert sent(doc, "karbon", "declare Vera true leap") == Declare(
        participant="vera", payload=k.Risk(all_in=True, move="leap")
    )

    table.do(GM, k.DrawHands(agent=["d6-1", "d6-2", "d8-1"], narrator=["d6-3", "d10-1"]))
    doc = view_of(table.ruleset, table.contest)
    # physical dice: the faces in the order the hands show them, the agent's dice first
    assert sent(doc, "karbon", "roll 2,5,3,6,1").faces == {"d6-1": 2, "d6-2": 5, "d8-1": 3, "d6-3": 6, "d10-1": 1}
    said = refused(doc, "karbon", "roll 2,5")
    assert said.startswith("faces: 2 faces for 5 dice: Vera's hand holds 3, the narrator's 2")


def test_contingency_characters_zones_and_the_rounds_actions_by_name() -> None:
    table = contingency_face_down()
    doc = view_of(table.rules, table.contest)
    assert sent(doc, "contingency", "place hound camp") == c.Place(character="hound", zone="camp")
    assert sent(doc, "contingency", "place Wren ROAD") == c.Place(character="bob_pc", zone="road")
    assert sent(doc, "contingency", "move Rook Road,Camp") == c.Move(character="ann_pc", path=["road", "camp"])
    assert sent(doc, "contingency", "set_target Rook.2 Bandit") == c.SetTarget(action="ann_pc.2", target="bandit")
    assert sent(doc, "contingency", "engage Rook Hound") == c.Engage(a="ann_pc", b="hound")
    said = refused(doc, "contingency", "place Rook Ford")
    assert said == "zone: no zone is called “Ford”: the zones are Camp, Road"
