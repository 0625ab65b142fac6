"""The client's sans-I/O core and invitation links, fed frames by hand (no socket)."""

from __future__ import annotations

import base64
import json

import pytest

from clients.python.core import Changed, ClientCore, Close, Lost, Refused, Send, Welcomed
from clients.python.errors import AuthRefusal, RetryLater, RuleRefusal, refusal
from clients.python.links import BadLink, parse, websocket_url
from protocol.messages import Error, Resync
from protocol.patch import view_hash
from server.net.auth import Tokens

CLAIMS = {"contest": "bridge", "exp": 1900000000, "role": "player", "seat": "ann"}
LEGACY = "agon1." + base64.urlsafe_b64encode(json.dumps(CLAIMS).encode()).rstrip(b"=").decode() + ".c2ln"
"""An invitation of Agon 0.1, before tokens were JWTs."""
TOKEN = Tokens(b"a-server-secret-of-at-least-32-bytes").issue("bridge", "player", "ann", ttl=3600, gen=3)


def frame(message: dict[str, object]) -> str:
    return json.dumps(message)


def welcome(view: dict[str, object], version: int = 3) -> str:
    return frame(
        {
            "type": "welcome",
            "contest": "bridge",
            "role": "player",
            "seat": "ann",
            "contestants": ["aria"],
            "version": version,
            "view_hash": view_hash(view),
            "view": view,
        }
    )


def patch(ops: list[dict[str, object]], start: int, end: int, result: dict[str, object]) -> str:
    message = {"type": "patch", "contest": "bridge", "from": start, "to": end, "ops": ops}
    return frame(message | {"view_hash": view_hash(result)})


@pytest.mark.parametrize("token", [TOKEN, LEGACY], ids=["jwt", "agon1"])
def test_the_contest_and_seat_come_from_the_token_of_a_link(token: str) -> None:
    for link in (
        f"http://table.example:8765/#t={token}",
        f"http://table.example:8765/#{token}",
        f"http://table.example:8765/play#token={token}&x=1",
        token,
    ):
        invitation = parse(link)
        assert invitation.server == (None if link == token else "ws://table.example:8765/ws")
        assert (invitation.contest, invitation.claims.role, invitation.claims.seat) == ("bridge", "player", "ann")
        assert invitation.token == token


def test_links_and_tokens_name_the_server_and_the_contest() -> None:
    assert parse(f"https://agon.example/#{TOKEN}").server == "wss://agon.example/ws"
    bare = parse(TOKEN)
    assert bare.server is None and bare.contest == "bridge"
    assert parse(TOKEN, server="ws://h:1/ws").server == "ws://h:1/ws"
    assert websocket_url("ws://h:1") == "ws://h:1/ws"
    with pytest.raises(BadLink, match="no token"):
        parse("http://table.example:8765/")
    with pytest.raises(BadLink, match="neither a token"):
        parse("bridge")
    with pytest.raises(BadLink, match="claims"):
        parse("agon1.!!!.sig")


def test_patches_are_applied_and_checked_and_a_mismatch_asks_for_a_fresh_view() -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    view: dict[str, object] = {"version": 3, "rules": {"ap": 15}}
    outputs = core.receive(welcome(view))
    assert [type(o) for o in outputs] == [Welcomed, Changed]
    mirror = core.mirrors["bridge"]
    assert mirror.doc == view and mirror.version == 3 and mirror.in_sync

    moved = {"version": 4, "rules": {"ap": 12}}
    ops: list[dict[str, object]] = [
        {"op": "replace", "path": "/version", "value": 4},
        {"op": "replace", "path": "/rules/ap", "value": 12},
    ]
    assert [type(o) for o in core.receive(patch(ops, 3, 4, moved))] == [Changed]
    assert mirror.doc == moved and mirror.version == 4

    wrong = {"version": 5, "rules": {"ap": 99}}  # the hash of another document than the ops make
    assert core.receive(patch([{"op": "replace", "path": "/version", "value": 5}], 4, 5, wrong)) == [
        Send(Resync(contest="bridge"))
    ]
    assert not mirror.in_sync and mirror.desyncs == 1
    assert core.receive(patch([], 5, 6, wrong)) == []  # moot until the fresh view arrives
    fresh = {"version": 6, "rules": {"ap": 10}}
    assert [type(o) for o in core.receive(welcome(fresh, 6))] == [Welcomed, Changed]
    assert mirror.in_sync and mirror.doc == fresh

    assert core.receive(patch([], 8, 9, fresh)) == [Send(Resync(contest="bridge"))]  # a gap
    assert core.receive("not json") == []


def test_a_welcome_whose_hash_does_not_match_its_view_is_not_trusted() -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    bad = json.loads(welcome({"version": 3}))
    bad["view_hash"] = "0000000000000000"
    assert core.receive(json.dumps(bad)) == [Send(Resync(contest="bridge"))]


def test_errors_become_typed_refusals_carrying_the_servers_code() -> None:
    core = ClientCore()
    error = {"type": "error", "code": "rules/bid_too_high", "message": "bid: at most 15", "id": "c1"}
    [output] = core.receive(frame(error))
    assert isinstance(output, Refused) and output.id == "c1"
    raised = refusal(output.error)
    assert isinstance(raised, RuleRefusal) and raised.code == "rules/bid_too_high"
    assert isinstance(refusal(Error(code="auth/expired_token", message="")), AuthRefusal)
    assert isinstance(refusal(Error(code="rate/limited", message="")), RetryLater)


@pytest.mark.parametrize("code", ["auth/revoked", "auth/expired_token", "auth/bad_token", "contest/not_found"])
def test_a_contest_refused_for_good_is_lost_and_no_longer_resumed(code: str) -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    core.receive(welcome({"version": 3}))
    error = {"type": "error", "code": code, "message": "ask the GM for a new link", "contest": "bridge"}
    refused, lost, close = core.receive(frame(error))
    assert isinstance(refused, Refused) and isinstance(lost, Lost)
    assert lost.contest == "bridge" and lost.error.code == code
    assert "bridge" not in core.mirrors and core.resumes() == []
    assert close == Close()  # it followed nothing else: the connection has no more use


def test_a_lost_contest_leaves_the_connection_open_while_another_is_followed() -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    core.receive(welcome({"version": 3}))
    core.expect("ford", TOKEN)
    core.receive(welcome({"version": 5}).replace('"bridge"', '"ford"'))
    revoked = {"type": "error", "code": "auth/revoked", "message": "re-issued", "contest": "bridge"}
    assert [type(o) for o in core.receive(frame(revoked))] == [Refused, Lost]
    assert [f.contest for f in core.resumes()] == ["ford"]
    gone = {"type": "error", "code": "contest/not_found", "message": "deleted", "contest": "ford"}
    assert [type(o) for o in core.receive(frame(gone))] == [Refused, Lost, Close]  # now the last one


def test_a_follow_refused_before_its_welcome_leaves_the_connection_to_whoever_asked() -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    error = {"type": "error", "code": "auth/bad_token", "message": "no", "contest": "bridge"}
    assert [type(o) for o in core.receive(frame(error))] == [Refused, Lost]


@pytest.mark.parametrize(
    "error",
    [
        {"code": "rate/limited", "contest": "bridge"},  # try again later
        {"code": "server/shutting_down", "contest": "bridge"},
        {"code": "auth/revoked", "contest": "bridge", "id": "c1"},  # a request's answer: the request's business
        {"code": "auth/revoked", "contest": "elsewhere"},  # a contest this client does not follow
    ],
)
def test_an_error_a_retry_may_mend_loses_nothing(error: dict[str, str]) -> None:
    core = ClientCore()
    core.expect("bridge", TOKEN)
    core.receive(welcome({"version": 3}))
    outputs = core.receive(frame({"type": "error", "message": "no", **error}))
    assert [type(o) for o in outputs] == [Refused]
    assert [f.contest for f in core.resumes()] == ["bridge"]
