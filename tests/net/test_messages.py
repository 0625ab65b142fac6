"""Every client↔server message: stable tags, a lossless round trip, and hostile frames as stable errors."""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec
import pytest

from protocol.codec import decode, decode_untrusted, encode
from protocol.errors import Refused
from protocol.events import Declare, Undo
from protocol.messages import (
    Ack,
    ClientMessage,
    Contests,
    ContestSummary,
    Create,
    Created,
    Error,
    Execute,
    Follow,
    FollowContest,
    Hello,
    Invitations,
    ListContests,
    Notice,
    Patch,
    Ping,
    Pong,
    Resync,
    ServerMessage,
    Unfollow,
    Welcome,
)
from protocol.patch import Add, Remove, Replace
from protocol.rulesets import extended as x
from protocol.talk import RolledDie, Said, Say, Talk, TalkLine, TalkRoll
from tests.net.duel import duel

CLIENT: list[Any] = [
    Hello(follow=[Follow(contest="duel", token="t", after=3)], owner="o", client="test"),
    Hello(),
    FollowContest(contest="duel", token="t"),
    Unfollow(contest="duel"),
    Resync(contest="duel"),
    Execute(id="c1", contest="duel", command=Declare(participant="aria", payload=x.Intent(action="lunge", bid=4))),
    Execute(id="c2", contest="duel", command=x.Roll(faces=[3, None])),
    Execute(id="c3", contest="duel", command=Undo()),
    Create(id="c4", contest=duel(), create_key="k"),
    ListContests(id="c5"),
    Ping(nonce=7),
    Say(id="c6", contest="duel", text="/roll 2d6+1 to hit", to="gm"),
]

SERVER: list[Any] = [
    Welcome(contest="duel", role="player", seat="ann", contestants=["aria"], version=5, view_hash="ab", view={"a": 1}),
    Welcome(contest="duel", role="spectator", seat="~spectator", contestants=[], version=5, view_hash="ab"),
    Patch(contest="duel", from_=5, to=7, ops=[Replace("/version", 7), Add("/a/-", [1]), Remove("/b")], view_hash="cd"),
    Notice(contest="duel", version=6, kind="seal.declared", actor="ann", at="2024-01-01T00:00:00.000+00:00", text="t"),
    Ack(id="c1", contest="duel", version=7),
    Error(code="auth/forbidden", message="no", id="c1", contest="duel"),
    Error(code="protocol/bad_frame", message="not JSON"),
    Created(id="c4", contest="duel", version=2, invitations=Invitations("g", {"gm": "g"}, "s", "o", 10)),
    Contests(id="c5", contests=[ContestSummary(contest="duel", title="Duel", ruleset="extended", version=2)]),
    Pong(nonce=7),
    Said(contest="duel", line=TalkLine(n=1, from_="ann", name="Ann", text="hi", at="t", version=3), id="c6"),
    Talk(
        contest="duel",
        lines=[
            TalkLine(
                n=2,
                from_="gm",
                name="GM",
                to="ann",
                to_name="Ann",
                text="",
                at="t",
                version=3,
                roll=TalkRoll(
                    expression="d20", dice=[RolledDie(sides=20, face=7)], modifier=0, total=7, seed_hash="ab"
                ),
            )
        ],
        more=True,
    ),
]

TAGS = {
    "client": [
        "hello",
        "follow",
        "unfollow",
        "resync",
        "command",
        "create",
        "list_contests",
        "invite",
        "get_timeline",
        "ping",
        "say",
    ],
    "server": [
        "welcome",
        "patch",
        "notice",
        "ack",
        "error",
        "created",
        "contests",
        "invited",
        "timeline",
        "pong",
        "presence",
        "said",
        "talk",
    ],
}


def tags(union: Any) -> list[str]:
    return [member.__struct_config__.tag for member in typing.get_args(union)]


def test_tags_are_explicit_and_stable() -> None:
    assert tags(ClientMessage) == TAGS["client"]
    assert tags(ServerMessage) == TAGS["server"]
    for member in [*typing.get_args(ClientMessage), *typing.get_args(ServerMessage)]:
        config = member.__struct_config__
        assert config.frozen and config.forbid_unknown_fields and config.tag_field == "type"


@pytest.mark.parametrize("message", CLIENT, ids=lambda m: type(m).__name__)
def test_client_messages_round_trip(message: Any) -> None:
    assert decode_untrusted(encode(message), ClientMessage) == message  # type: ignore[arg-type]


@pytest.mark.parametrize("message", SERVER, ids=lambda m: type(m).__name__)
def test_server_messages_round_trip(message: Any) -> None:
    assert decode(encode(message), ServerMessage) == message  # type: ignore[arg-type]


def test_a_patch_names_its_versions_from_and_to() -> None:
    wire = json.loads(encode(SERVER[2]))
    assert wire["from"] == 5 and wire["to"] == 7
    assert wire["ops"][1] == {"op": "add", "path": "/a/-", "value": [1]}


@pytest.mark.parametrize(
    ("frame", "code", "names"),
    [
        ("not json", "protocol/bad_frame", ""),
        (b"\x00\xff", "protocol/bad_frame", ""),
        ('{"type": "frobnicate"}', "protocol/unknown_message", "frobnicate"),
        ('{"no": "type"}', "protocol/unknown_message", "type"),
        ('{"type": "ping", "nonce": "1"}', "protocol/bad_field", "$.nonce"),
        ('{"type": "ping", "extra": 1}', "protocol/bad_field", "extra"),
        ('{"type": "follow", "contest": "", "token": "t"}', "protocol/bad_field", "$.contest"),
        ('{"type": "follow", "contest": "c", "token": "t", "after": -1}', "protocol/bad_field", "$.after"),
        (
            '{"type": "command", "id": "", "contest": "c", "command": {"type": "control.undo"}}',
            "protocol/bad_field",
            "$.id",
        ),
        (
            '{"type": "command", "id": "1", "contest": "c", "command": {"type": "extended.propose_bid", '
            '"contestant": "orc", "bid": "5"}}',
            "protocol/bad_field",
            "$.command.bid",
        ),
        (
            '{"type": "command", "id": "1", "contest": "c", "command": {"type": "fly"}}',
            "protocol/bad_field",
            "$.command.type",
        ),
        ('{"type": "hello", "follow": [{"contest": "c", "token": 5}]}', "protocol/bad_field", "token"),
    ],
)
def test_hostile_frames_get_a_stable_code_naming_the_field(frame: str | bytes, code: str, names: str) -> None:
    with pytest.raises(Refused) as refused:
        decode_untrusted(frame, ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == code
    assert names in refused.value.message


def test_every_message_has_a_json_schema() -> None:
    (_, components) = msgspec.json.schema_components([ClientMessage, ServerMessage])
    for name in ["Hello", "Execute", "Create", "Welcome", "Patch", "Notice", "Ack", "Error", "Created"]:
        assert name in components
