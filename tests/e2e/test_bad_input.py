"""Hostile input over a real socket: each gets its documented error, the connection stays open unless the
peer is abusive, and no contest's log changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clients.python.client import AgonClient, Refusal
from protocol.events import Declare, Undo
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.net.auth import Tokens
from server.store.sqlite import SqliteStore
from tests.e2e.conftest import SECRET, ServerFactory, ServerProcess
from tests.net.duel import duel


class Table:
    """Two contests on one server, and the store behind it to check that nothing changes."""

    def __init__(self, server: ServerProcess, database: Path) -> None:
        self.server = server
        self.store = SqliteStore(database)
        self.clients: list[AgonClient] = []

    async def open(self) -> None:
        self.gm = await self.connect()
        created = await self.gm.create(duel())
        self.contest, self.invitations = created.contest, created.invitations
        other = await self.gm.create(duel(title="elsewhere"))
        self.other, self.other_invitations = other.contest, other.invitations
        await self.gm.follow(self.contest, self.invitations.gm)
        bob = await self.connect([Follow(self.contest, self.invitations.seats["bob"])])
        await bob.command(self.contest, Declare(participant="orc", payload=x.Intent(action="wait", bid=2)))
        self.heads = await self.read_heads()

    async def connect(self, follow: list[Follow] | None = None, hello: bool = True) -> AgonClient:
        client = await AgonClient.connect(self.server.ws_url, follow=follow or [], hello=hello)
        self.clients.append(client)
        return client

    async def read_heads(self) -> dict[str, tuple[int, bytes]]:
        heads = {}
        for contest in (self.contest, self.other):
            records = await self.store.read(contest)
            heads[contest] = (len(records), b"".join(r.data for r in records))
        return heads

    async def close(self) -> None:
        for client in self.clients:
            await client.close()
        await self.store.close()


@pytest.fixture
async def table(agon_server: ServerFactory, tmp_path: Path):  # type: ignore[no-untyped-def]
    database = tmp_path / "bad.sqlite3"
    opened = Table(agon_server(store=f"sqlite:{database}"), database)
    await opened.open()
    yield opened
    assert await opened.read_heads() == opened.heads, "a contest's log changed"
    await opened.close()


async def expect_error(client: AgonClient, frame: str | bytes) -> tuple[str, str]:
    await client.send_raw(frame)
    error = await client.next_error()
    await client.ping()  # the connection is still open
    return error.code, error.message


async def test_frames_that_are_not_messages_get_protocol_errors(table: Table) -> None:
    ann = await table.connect([Follow(table.contest, table.invitations.seats["ann"])])
    assert (await expect_error(ann, "this is not JSON"))[0] == "protocol/bad_frame"
    assert (await expect_error(ann, b"\xff\xfe\x00"))[0] == "protocol/bad_frame"
    assert (await expect_error(ann, '{"type": "frobnicate"}'))[0] == "protocol/unknown_message"
    assert (await expect_error(ann, "{}"))[0] == "protocol/unknown_message"
    bad_bid = {
        "type": "command",
        "id": "c1",
        "contest": table.contest,
        "command": {"type": "extended.propose_bid", "contestant": "orc", "bid": "5"},
    }
    code, message = await expect_error(ann, json.dumps(bad_bid))
    assert code == "protocol/bad_field" and "$.command.bid" in message
    code, message = await expect_error(ann, json.dumps({"type": "follow", "contest": table.contest, "token": 7}))
    assert code == "protocol/bad_field" and "$.token" in message
    code, message = await expect_error(ann, json.dumps({"type": "ping", "nonce": 1, "extra": True}))
    assert code == "protocol/bad_field" and "extra" in message


async def test_frames_before_hello_are_unauthenticated(table: Table) -> None:
    stranger = await table.connect(hello=False)
    command = {"type": "command", "id": "c1", "contest": table.contest, "command": {"type": "control.undo"}}
    code, _ = await expect_error(stranger, json.dumps(command))
    assert code == "auth/unauthenticated"
    # Anonymous after hello: still no contest to act on.
    await stranger.hello()
    with pytest.raises(Refusal) as refused:
        await stranger.command(table.contest, Undo())
    assert refused.value.code == "auth/wrong_contest"
    with pytest.raises(Refusal) as refused:
        await stranger.contests()
    assert refused.value.code == "auth/unauthenticated"


async def test_bad_tokens_are_refused(table: Table) -> None:
    client = await table.connect()
    genuine = table.invitations.seats["ann"]
    head, claims, signature = genuine.split(".")
    forgeries = [
        f"{head}.{claims}.{signature[:-2]}AA",
        Tokens(b"another server's secret").issue(table.contest, "gm", "gm", 3600),
        "not-a-token",
        f"{head}.{Tokens(SECRET.encode()).issue(table.contest, 'gm', 'gm', 60).split('.')[1]}.{signature}",
    ]
    for forged in forgeries:
        with pytest.raises(Refusal) as refused:
            await client.follow(table.contest, forged)
        assert refused.value.code == "auth/bad_token", forged

    expired = Tokens(SECRET.encode(), clock=lambda: 1_000_000.0).issue(table.contest, "player", "ann", 60)
    with pytest.raises(Refusal) as refused:
        await client.follow(table.contest, expired)
    assert refused.value.code == "auth/expired_token"

    with pytest.raises(Refusal) as refused:
        await client.follow(table.contest, table.other_invitations.seats["ann"])
    assert refused.value.code == "auth/wrong_contest"

    no_such_seat = Tokens(SECRET.encode()).issue(table.contest, "player", "zed", 3600)
    with pytest.raises(Refusal) as refused:
        await client.follow(table.contest, no_such_seat)
    assert refused.value.code == "auth/bad_token"

    # In the hello too, and the connection stays usable with what was genuine.
    with pytest.raises(Refusal) as refused:
        await client.hello([Follow(table.other, table.invitations.gm), Follow(table.contest, genuine)])
    assert refused.value.code == "auth/wrong_contest"
    await client.ping()
    assert client.mirrors[table.contest].in_sync and client.mirrors[table.contest].seat == "ann"


async def test_players_act_only_for_their_own_seat(table: Table) -> None:
    ann = await table.connect([Follow(table.contest, table.invitations.seats["ann"])])
    with pytest.raises(Refusal) as refused:
        await ann.command(table.contest, Declare(participant="orc", payload=x.Intent(action="betray", bid=1)))
    assert refused.value.code == "auth/not_your_seat"
    with pytest.raises(Refusal) as refused:
        await ann.command(table.other, Undo())
    assert refused.value.code == "auth/wrong_contest"
    with pytest.raises(Refusal) as refused:
        await ann.command(table.contest, Undo())
    assert refused.value.code == "auth/forbidden"
    watcher = await table.connect([Follow(table.contest, table.invitations.spectator)])
    with pytest.raises(Refusal) as refused:
        await watcher.command(table.contest, Declare(participant="aria", payload=x.Intent(bid=2)))
    assert refused.value.code == "auth/forbidden"


async def test_an_oversized_frame_closes_the_connection_with_1009(table: Table) -> None:
    ann = await table.connect([Follow(table.contest, table.invitations.seats["ann"])])
    action = "x" * (64 * 1024)
    frame = {
        "type": "command",
        "id": "big",
        "contest": table.contest,
        "command": {
            "type": "seal.declare",
            "participant": "aria",
            "payload": {"type": "extended.intent", "action": action},
        },
    }
    await ann.send_raw(json.dumps(frame))
    assert await ann.wait_closed() == 1009
    other = await table.connect([Follow(table.contest, table.invitations.seats["bob"])])
    await other.ping()  # the server goes on


async def test_a_flood_is_rate_limited_then_closed(table: Table) -> None:
    flooder = await table.connect([Follow(table.contest, table.invitations.seats["ann"])])
    undo = json.dumps({"type": "command", "id": "u", "contest": table.contest, "command": {"type": "control.undo"}})
    for _ in range(300):
        try:
            await flooder.send_raw(undo)
        except Exception:
            break
    assert await flooder.wait_closed() == 1008
    assert "rate/limited" in [e.code for e in flooder.errors]
    other = await table.connect([Follow(table.contest, table.invitations.seats["bob"])])
    await other.ping()
