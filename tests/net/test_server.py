"""The server in this process, over real loopback sockets: resumes, acks, desyncs, health, limits, draining."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.python.client import AgonClient, Refusal
from protocol.codec import encode
from protocol.common import Seat
from protocol.events import Declare
from protocol.messages import Created, Follow
from protocol.rulesets import extended as x
from server.net.app import AgonServer
from server.net.connection import Connection
from server.store.memory import MemoryStore
from tests.net.conftest import Start
from tests.net.duel import ARIA_WINS, ORC_FAILS, duel


async def open_duel(server: AgonServer) -> tuple[AgonClient, Created]:
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(duel())
    await gm.follow(created.contest, created.invitations.gm)
    return gm, created


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), json.loads(error.read())


async def test_a_client_resumes_from_memory_from_the_log_or_gets_a_fresh_view(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    gm, created = await open_duel(server)
    contest, seats = created.contest, created.invitations.seats
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, seats["bob"])])
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    revealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    await ann.wait_version(contest, revealed.version)

    # From memory: the feed still holds Ann's version.
    ann.abort()
    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    await ann.reconnect()
    assert ann.mirrors[contest].welcomes[-1].view is None
    await ann.wait_version(contest, rolled.version)
    assert ann.mirrors[contest].patches[-1] == (revealed.version, rolled.version)

    # From the log: another process (a fresh feed) refolds the contest up to Ann's version.
    other = await start(store)
    await ann.close()
    ann.url = other.ws_url
    await ann.reconnect()
    assert ann.mirrors[contest].welcomes[-1].view is None and ann.mirrors[contest].version == rolled.version
    ended = await gm.command(contest, x.Roll(faces=ORC_FAILS))
    mirror = await ann.wait_version(contest, ended.version)
    assert mirror.desyncs == 0 and mirror.rules["round"] == 2

    # A version that is not the end of a stored batch, or that never existed: a fresh view.
    for unknown in (revealed.version - 1, ended.version + 50):
        fresh = await AgonClient.connect(other.ws_url, follow=[Follow(contest, seats["ann"], after=unknown)])
        welcome = fresh.mirrors[contest].welcomes[-1]
        assert welcome.view is not None and welcome.version == ended.version
        assert fresh.mirrors[contest].doc == mirror.doc
        await fresh.close()
    for client in (gm, ann, bob):
        await client.close()


async def test_an_ack_comes_after_the_commands_own_patch(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    ack = await gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="a wound"))
    kinds = [json.loads(frame)["type"] for frame in gm.frames]
    patches = [json.loads(frame).get("to") for frame in gm.frames]
    assert patches.index(ack.version) < kinds.index("ack")
    assert gm.mirrors[created.contest].version == ack.version  # no waiting needed
    await gm.close()


async def test_a_client_out_of_sync_asks_for_a_fresh_view(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    mirror = gm.mirrors[created.contest]
    assert mirror.doc is not None
    mirror.doc = {**mirror.doc, "title": "tampered"}  # as if a patch had been misapplied
    ack = await gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="a wound"))
    await gm.wait_version(created.contest, ack.version)
    assert mirror.desyncs == 1 and mirror.in_sync
    assert mirror.welcomes[-1].view is not None and mirror.doc["title"] == duel().title
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(created.contest, created.invitations.gm)])
    assert fresh.mirrors[created.contest].doc == mirror.doc
    for client in (gm, fresh):
        await client.close()


async def test_health_reports_an_unreachable_store(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    status, body = await asyncio.to_thread(get, f"{server.url}healthz")
    assert status == 200 and body["status"] == "ok"
    await store.close()
    status, body = await asyncio.to_thread(get, f"{server.url}healthz")
    assert status == 503 and body["store"] == "unreachable"


async def test_a_connection_that_never_says_hello_is_closed(start: Start) -> None:
    server = await start(hello_timeout=0.2)
    silent = await AgonClient.connect(server.ws_url, hello=False)
    assert await silent.wait_closed() == 1008
    assert [e.code for e in silent.errors] == ["auth/unauthenticated"]


async def test_each_silent_connection_is_closed_in_turn_and_one_that_said_hello_is_no_longer_watched(
    start: Start,
) -> None:
    server = await start(hello_timeout=0.5)
    first = await AgonClient.connect(server.ws_url, hello=False)
    talking = await AgonClient.connect(server.ws_url)
    await asyncio.sleep(0.25)
    second = await AgonClient.connect(server.ws_url, hello=False)
    await talking.ping()  # its hello has been read
    assert len(server.context.hellos) == 2  # the two silent ones; the one that said hello keeps nothing
    assert await first.wait_closed() == 1008
    assert not second.closed  # due a quarter of a second later
    assert await second.wait_closed() == 1008
    assert len(server.context.hellos) == 0
    await talking.ping()  # still open, well past its own timeout
    await talking.close()


async def test_a_draining_server_takes_no_new_connections_or_commands(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    server.context.draining = True
    with pytest.raises(Refusal) as refused:
        await gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="late"))
    assert refused.value.code == "server/shutting_down"
    with pytest.raises(InvalidStatus) as rejected:
        async with connect(server.ws_url):
            pass
    assert rejected.value.response.status_code == 503
    server.context.draining = False
    await gm.close()


async def test_a_contest_stops_being_followed_after_its_last_viewer_leaves(start: Start) -> None:
    server = await start(feed_linger=0.05)
    gm, created = await open_duel(server)
    assert len(server.context.hub) == 1
    await gm.unfollow(created.contest)
    await gm.ping()
    async with asyncio.timeout(5):
        while len(server.context.hub):
            await asyncio.sleep(0.01)
    await gm.follow(created.contest, created.invitations.gm)  # and again on demand
    assert len(server.context.hub) == 1
    await gm.close()


async def test_an_id_already_taken_is_refused(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url)
    await gm.create(duel(contest="bridge"))
    with pytest.raises(Refusal) as refused:
        await gm.create(duel(contest="bridge"))
    assert refused.value.code == "contest/exists"
    # No seat may pose as the spectators' principal.
    posing = msgspec.structs.replace(duel(), seats=[Seat("gm", "gm"), Seat("~spectator", "player", ["aria"])])
    with pytest.raises(Refusal) as refused:
        await gm.create(posing)
    assert refused.value.code == "contest/bad_setup"
    await gm.close()


class SlowSocket:
    """A socket whose peer reads nothing: its buffer is full and never drains."""

    paused = True

    def __init__(self) -> None:
        self.closed_with: tuple[int, str] | None = None
        self.loop = asyncio.get_running_loop()

    async def drain(self) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int, reason: str) -> None:
        self.closed_with = (code, reason)


async def test_a_client_too_slow_to_keep_up_is_dropped(start: Start) -> None:
    server = await start(send_queue=3)
    connection = Connection(SlowSocket(), server.context)  # type: ignore[arg-type]
    socket: SlowSocket = connection._ws  # type: ignore[assignment]
    for i in range(3):
        connection.send(encode({"frame": i}))
    assert socket.closed_with is None
    connection.send(encode({"frame": 3}))  # one more than the queue holds: never waits, drops the client
    await asyncio.sleep(0)
    assert socket.closed_with is not None and socket.closed_with[0] == 1013
    assert server.context.metrics.dropped.value("too_slow") == 1
    connection.send(encode({"frame": 4}))  # ignored once closing


class GatedStore(MemoryStore):
    """Appends wait at a gate once it is closed, so a command can be held in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Event | None = None
        self.waiting = asyncio.Event()

    async def append(self, contest: str, records: Any, expected_version: int) -> list[int]:
        if self.gate is not None:
            self.waiting.set()
            await self.gate.wait()
        return await super().append(contest, records, expected_version)


async def test_shutdown_finishes_in_flight_appends_then_closes_with_1001(start: Start) -> None:
    store = GatedStore()
    server = await start(store)
    gm, created = await open_duel(server)
    store.gate = asyncio.Event()
    command = asyncio.create_task(gm.command(created.contest, x.Adjust(contestant="orc", delta=-1, reason="late")))
    await store.waiting.wait()
    shutdown = asyncio.create_task(server.shutdown())
    await asyncio.sleep(0)
    assert not shutdown.done()
    store.gate.set()
    ack = await command  # answered before the socket closes
    await shutdown
    assert await gm.wait_closed() == 1001
    assert await store.head(created.contest) == ack.version


async def test_spectators_who_keep_up_cost_no_writer_task_and_see_every_frame_in_order(start: Start) -> None:
    """Frames go straight to a socket that takes them: ten spectators receiving a burst of patches leave the
    server no task of their own for sending, and each ends in sync (patches in order, hashes matching)."""
    server = await start()
    gm, created = await open_duel(server)
    contest = created.contest
    spectators = [
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, created.invitations.spectator)])
        for _ in range(10)
    ]
    head = 0
    for i in range(20):
        head = (await gm.command(contest, x.Adjust(contestant="orc", delta=1 - 2 * (i % 2), reason=f"{i}"))).version
    for spectator in spectators:
        mirror = await spectator.wait_version(contest, head)
        assert mirror.doc is not None and mirror.doc["version"] == head
    writers = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == Connection._write.__qualname__]  # type: ignore[union-attr]
    assert writers == []
    for client in [gm, *spectators]:
        await client.close()
