"""Faults found by probing ``agon serve`` from outside, each reproduced through real loopback sockets."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
from redis.asyncio import Redis
from websockets.asyncio.client import connect

from clients.python.client import AgonClient, Refusal
from protocol.codec import decode_untrusted, to_builtins
from protocol.errors import Refused
from protocol.messages import ClientMessage, Created, Follow
from protocol.rulesets import extended as x
from server.net.app import AgonServer
from server.net.http import host_allowed, origin_allowed
from server.net.settings import Settings
from server.service import ContestService
from server.store.memory import MemoryStore
from server.store.port import Record, UnavailableError
from server.store.redis import RedisStore
from tests.conftest import RedisServer
from tests.engine.table import GM
from tests.net.conftest import Start
from tests.net.duel import duel
from tests.net.slow_client import slow_client
from tests.net.test_server import get, open_duel
from tests.test_store_faults import lose_tail


def gm_adjust(delta: int, reason: str) -> x.Adjust:
    return x.Adjust(contestant="orc", delta=delta, reason=reason)


class FlakyLoads(MemoryStore):
    """Loading a contest's snapshot fails ``failing`` times (the store drops out again), then works."""

    failing = 0

    async def load_snapshot(self, contest: str) -> Any:
        if self.failing:
            self.failing -= 1
            raise UnavailableError("the store dropped out again")
        return await super().load_snapshot(contest)


@dataclass
class LostHead:
    """A duel whose store came back without its last acknowledged event, with Ann watching, and a service
    of another process ready to write a new history from there."""

    gm: AgonClient
    ann: AgonClient
    contest: str
    ann_token: str
    head: int  # the version Ann saw, now lost
    welcomes: int  # welcomes Ann had received by then
    elsewhere: ContestService


async def lose_the_head(server: AgonServer, store: MemoryStore) -> LostHead:
    gm, created = await open_duel(server)
    contest, token = created.contest, created.invitations.seats["ann"]
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, token)])
    for i in range(3):
        head = (await gm.command(contest, gm_adjust(-1, f"wound {i}"))).version
    await ann.wait_version(contest, head)
    await lose_tail("memory:", store, contest, head - 1)  # the store comes back without the last acknowledged event
    elsewhere = ContestService(store)
    await elsewhere.load(contest)
    return LostHead(gm, ann, contest, token, head, len(ann.mirrors[contest].welcomes), elsewhere)


async def write_elsewhere(lost: LostHead) -> None:
    for i in range(2):
        await lost.elsewhere.execute(lost.contest, GM, f"elsewhere-{i}", gm_adjust(-2, f"elsewhere {i}"))


async def test_a_store_that_comes_back_behind_resyncs_the_viewers_and_is_reported(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    lost = await lose_the_head(server, store)
    contest, head = lost.contest, lost.head
    await write_elsewhere(lost)  # another process writes a new history from the lost version

    mirror = await lost.ann.wait_version(contest, head + 1)
    assert len(mirror.welcomes) > lost.welcomes and mirror.welcomes[-1].view is not None
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, lost.ann_token)])
    assert fresh.mirrors[contest].doc == mirror.doc
    status, body = await asyncio.to_thread(get, f"{server.url}healthz")
    assert status == 200 and body["status"] == "lost_events" and body["lost_events"] == {contest: 1}
    assert "agon_store_lost_events_total 1" in server.context.metrics.render()
    # And commands through this process go on, chained to what the store holds.
    after = await lost.gm.command(contest, gm_adjust(-1, "after"))
    assert after.version == head + 2
    for client in (lost.gm, lost.ann, fresh):
        await client.close()


async def test_a_resync_that_meets_the_store_away_tries_again_until_it_is_back(start: Start) -> None:
    store = FlakyLoads()
    server = await start(store)
    lost = await lose_the_head(server, store)
    contest, head = lost.contest, lost.head
    store.failing = 3  # the store drops out again while this process reloads the contest for its viewers
    await write_elsewhere(lost)

    mirror = await lost.ann.wait_version(contest, head + 1, timeout=15)
    assert store.failing == 0 and len(mirror.welcomes) > lost.welcomes
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, lost.ann_token)])
    assert fresh.mirrors[contest].doc == mirror.doc
    # The feed lives on: the next command reaches the viewer as a patch.
    after = await lost.gm.command(contest, gm_adjust(-1, "after"))
    patched = await lost.ann.wait_version(contest, after.version)
    assert patched.doc == (await fresh.wait_version(contest, after.version)).doc
    for client in (lost.gm, lost.ann, fresh):
        await client.close()


class ForgetfulStore(MemoryStore):
    """The next append is acknowledged and then lost (a power loss right after it); with ``hold`` set, the
    next snapshot load waits for ``released`` (the feed reloading the contest meanwhile)."""

    def __init__(self) -> None:
        super().__init__()
        self.lose_next = False
        self.hold = False
        self.released = asyncio.Event()

    async def append(self, contest: str, records: Any, expected_version: int) -> list[int]:
        written = await super().append(contest, records, expected_version)
        if self.lose_next:
            self.lose_next = False
            await lose_tail("memory:", self, contest, expected_version)
        return written

    async def load_snapshot(self, contest: str) -> Any:
        if self.hold:
            self.hold = False
            await self.released.wait()
        return await super().load_snapshot(contest)


async def hold_the_reload(server: AgonServer, store: ForgetfulStore, contest: str) -> None:
    """Start the feed's reload of the contest and hold it there: the feed keeps its old history meanwhile."""
    feed = server.context.hub.get(contest)
    assert feed is not None
    store.hold = True
    server.context.hub.spawn(feed.resync())
    await asyncio.sleep(0.05)


@dataclass
class Lagging:
    """A duel whose feed reloads (it publishes nothing meanwhile) while its store loses the next append."""

    server: AgonServer
    store: ForgetfulStore
    gm: AgonClient
    created: Created
    head: int


async def lagging_and_forgetful(start: Start) -> Lagging:
    store = ForgetfulStore()
    server = await start(store, ack_wait=0.3)
    gm, created = await open_duel(server)
    head = (await gm.command(created.contest, gm_adjust(-1, "first"))).version
    await hold_the_reload(server, store, created.contest)
    store.lose_next = True
    return Lagging(server, store, gm, created, head)


async def test_an_ack_never_claims_a_command_the_store_lost_while_the_feed_lagged(start: Start) -> None:
    lag = await lagging_and_forgetful(start)
    gm, contest, head, store = lag.gm, lag.created.contest, lag.head, lag.store
    with pytest.raises(Refusal) as refused:
        await gm.command(contest, gm_adjust(-1, "lost"), id="lost-one")
    assert refused.value.code == "store/unavailable" and "send it again" in refused.value.message
    assert (await store.head(contest)) == head
    status, body = await asyncio.to_thread(get, f"{lag.server.url}healthz")
    assert status == 200 and body["lost_events"] == {contest: 1}
    store.released.set()
    # Sent again with the same id, the command is stored and acknowledged at the version it lost.
    again = await gm.command(contest, gm_adjust(-1, "lost"), id="lost-one")
    assert again.version == head + 1 and not again.repeated
    assert (await store.head(contest)) == head + 1
    assert (await gm.wait_version(contest, head + 1)).version == head + 1
    await gm.close()


async def test_a_new_invitation_the_store_lost_is_never_handed_out(start: Start) -> None:
    lag = await lagging_and_forgetful(start)
    gm, contest, old = lag.gm, lag.created.contest, lag.created.invitations.seats["ann"]
    with pytest.raises(Refusal) as refused:
        await gm.invite(contest, "ann")
    assert refused.value.code == "store/unavailable"
    lag.store.released.set()
    # The re-issue never happened: the old link still works. Asked again, the new one works and revokes it.
    ann = await AgonClient.connect(lag.server.ws_url, follow=[Follow(contest, old)])
    assert ann.mirrors[contest].in_sync
    invited = await gm.invite(contest, "ann")
    again = await AgonClient.connect(lag.server.ws_url, follow=[Follow(contest, invited.token)])
    assert again.mirrors[contest].in_sync
    with pytest.raises(Refusal) as revoked:
        await AgonClient.connect(lag.server.ws_url, follow=[Follow(contest, old)])
    assert revoked.value.code == "auth/revoked"
    for client in (gm, ann, again):
        await client.close()


async def test_an_ack_waits_for_the_feed_reloading_a_contest_whose_store_lost_events(start: Start) -> None:
    store = ForgetfulStore()
    server = await start(store)
    lost = await lose_the_head(server, store)
    contest, head = lost.contest, lost.head
    welcomes = len(lost.gm.mirrors[contest].welcomes)
    await hold_the_reload(server, store, contest)  # the feed still holds the lost history meanwhile
    # The GM's command is stored at the lost head's version, which the feed's lost history has already reached.
    sending = asyncio.create_task(lost.gm.command(contest, gm_adjust(-3, "after the loss")))
    await asyncio.sleep(0.3)
    assert not sending.done()  # no ack while the GM's view still shows the lost history
    store.released.set()
    ack = await sending
    assert ack.version == head
    mirror = lost.gm.mirrors[contest]
    # The fresh view of what the store holds came first, with the command in it.
    assert len(mirror.welcomes) > welcomes and mirror.in_sync and mirror.version == head
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, lost.ann_token)])
    assert fresh.mirrors[contest].doc == (await lost.ann.wait_version(contest, head)).doc
    assert mirror.doc["version"] == fresh.mirrors[contest].doc["version"] == head
    for client in (lost.gm, lost.ann, fresh):
        await client.close()


async def test_viewers_of_another_process_are_resynced_when_redis_comes_back_behind(
    start: Start, private_redis: RedisServer
) -> None:
    # Two processes share one Redis; Ann watches through the one that runs no command after the loss (it relays
    # the frames of the process hosting the contest, the GM's).
    writing, watching = RedisStore(private_redis.url), RedisStore(private_redis.url)
    admin = Redis.from_url(private_redis.url)
    try:
        host = await start(writing)
        gm, created = await open_duel(host)
        elsewhere = await start(watching)
        contest = created.contest
        ann = await AgonClient.connect(elsewhere.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
        for i in range(3):
            head = (await gm.command(contest, gm_adjust(-1, f"wound {i}"))).version
        seen = await ann.wait_version(contest, head)
        welcomes = len(seen.welcomes)
        # Redis comes back from a file cut two events back (a power loss): its connections drop, and what
        # both processes published is gone.
        await lose_tail(private_redis.url, writing, contest, head - 2)
        assert await admin.client_kill_filter(_type="pubsub") >= 1
        mirror = ann.mirrors[contest]
        # (A resume from the relay's reconnected inbox may welcome her at the lost head first.)
        await ann.wait_for(lambda: len(mirror.welcomes) > welcomes and mirror.in_sync and mirror.version == head - 2)
        assert mirror.welcomes[-1].view is not None
        assert ann.errors == [] and contest not in ann.lost  # a fresh view, never `store/behind`
        fresh = await AgonClient.connect(elsewhere.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
        assert fresh.mirrors[contest].doc == mirror.doc
        status, body = await asyncio.to_thread(get, f"{host.url}healthz")  # the host folds, so it counts
        assert status == 200 and body["status"] == "lost_events" and body["lost_events"] == {contest: 2}
        for client in (gm, ann, fresh):
            await client.close()
    finally:
        await admin.aclose()
        for store in (writing, watching):
            await store.close()


ORIGINS = [
    # origin, Host header, allowed
    ("http://127.0.0.1:8765", "127.0.0.1:8765", True),
    ("http://localhost:8765", "localhost:8765", True),
    ("http://127.0.0.1:9999", "127.0.0.1:8765", False),  # a page on another local port
    ("http://127.0.0.1", "127.0.0.1:8765", False),
    ("ftp://127.0.0.1:8765", "127.0.0.1:8765", False),
    ("null", "127.0.0.1:8765", False),
    ("https://table.example", "table.example", True),  # behind a TLS proxy: default ports agree
    ("https://table.example:8443", "table.example", False),
]


@pytest.mark.parametrize(("origin", "host", "allowed"), ORIGINS)
def test_the_origin_is_compared_in_full_with_the_servers_own(origin: str, host: str, allowed: bool) -> None:
    assert origin_allowed(origin, host, None) is allowed


def test_the_host_header_must_name_the_server() -> None:
    loopback = Settings(host="127.0.0.1", port=8765)
    assert host_allowed("127.0.0.1:8765", loopback)
    assert host_allowed("localhost:8765", loopback)
    assert host_allowed("[::1]:8765", loopback)
    assert not host_allowed("evil.example:8765", loopback)  # a DNS-rebinding page's host name
    assert not host_allowed(None, loopback)
    named = Settings(host="0.0.0.0", port=8765, hosts=("table.example",))
    assert host_allowed("table.example", named) and host_allowed("TABLE.example:8765", named)
    assert not host_allowed("evil.example", named)


async def handshake_status(port: int, host: str, origin: str | None = None) -> int:
    """The status of a raw WebSocket opening handshake sent with these headers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [
        "GET /ws HTTP/1.1",
        f"Host: {host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
        *([f"Origin: {origin}"] if origin else []),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    status = await reader.readline()
    writer.close()
    return int(status.split()[1])


async def test_a_dns_rebinding_page_and_another_local_port_are_refused(start: Start) -> None:
    server = await start()
    port = server.port
    assert await handshake_status(port, f"127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}") == 403
    assert await handshake_status(port, f"evil.example:{port}", f"http://evil.example:{port}") == 403
    assert await handshake_status(port, f"evil.example:{port}") == 403
    assert await handshake_status(port, f"localhost:{port}", f"http://localhost:{port}") == 101
    async with connect(server.ws_url, origin=f"http://127.0.0.1:{port}"):  # type: ignore[arg-type]
        pass


async def adjust_many(server: AgonServer, contest: str, count: int, tag: str) -> int:
    """GM adjustments straight through the server's service (as if other clients sent them)."""
    service = server.context.service
    version = 0
    for i in range(count):
        version = (
            await service.execute(contest, GM, f"{tag}-{i}", gm_adjust(1 if i % 2 else -1, f"{tag} {i}"))
        ).version
    return version


async def test_resuming_far_back_gets_one_patch_and_a_summary_not_one_frame_per_event(start: Start) -> None:
    server = await start()
    gm, created = await open_duel(server)
    contest, ann_token = created.contest, created.invitations.seats["ann"]
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, ann_token)], record_frames=True)
    await ann.wait_version(contest, 2)
    ann.abort()  # the client keeps its view and resumes from it
    head = await adjust_many(server, contest, 700, "far")  # more events than a send queue holds
    before = len(ann.frames)
    await ann.reconnect()
    mirror = await ann.wait_version(contest, head)
    assert ann.close_code is None
    assert mirror.in_sync and mirror.desyncs == 0
    notices = [frame for frame in ann.frames[before:] if '"type":"notice"' in frame]
    assert len(notices) == 1 and "700 events" in notices[0] and json.loads(notices[0])["kind"] == "catch_up"
    await ann.ping()  # still connected
    for client in (gm, ann):
        await client.close()
    assert len([f for f in ann.frames if '"type":"patch"' in f]) <= 1


async def test_resume_is_bounded_by_distance_not_by_version(start: Start) -> None:
    store = MemoryStore()
    first = await start(store, refold_limit=40, resume_ring=8)
    gm, created = await open_duel(first)
    contest, ann_token = created.contest, created.invitations.seats["ann"]
    head = await adjust_many(first, contest, 60, "long")  # the contest passes the refold limit
    await first.context.service.drain()  # its snapshot (every 50 versions) is stored
    other = await start(store, refold_limit=40, resume_ring=8)  # a fresh feed: nothing in its ring
    ann = await AgonClient.connect(
        other.ws_url, follow=[Follow(contest, ann_token, after=head - 1)], record_frames=True
    )
    welcome = json.loads(next(frame for frame in ann.frames if '"type":"welcome"' in frame))
    assert welcome["view"] is None and welcome["version"] == head - 1  # a patch follows, not a fresh view
    await ann.close()
    # Beyond the distance, a fresh view.
    ann = await AgonClient.connect(other.ws_url, follow=[Follow(contest, ann_token, after=head - 50)])
    assert ann.mirrors[contest].welcomes[-1].view is not None
    for client in (gm, ann):
        await client.close()


async def test_a_resume_refolds_from_a_snapshot_not_from_version_one(start: Start) -> None:
    store = CountingStore()
    first = await start(store, refold_limit=1000, resume_ring=4)
    first.context.service.snapshot_every = 50
    gm, created = await open_duel(first)
    contest, ann_token = created.contest, created.invitations.seats["ann"]
    head = await adjust_many(first, contest, 120, "snap")
    await first.context.service.drain()
    other = await start(store, refold_limit=1000, resume_ring=4)
    other.context.service.snapshot_every = 50
    store.read_records = 0
    ann = await AgonClient.connect(
        other.ws_url, follow=[Follow(contest, ann_token, after=head - 10)], record_frames=True
    )
    welcome = json.loads(next(frame for frame in ann.frames if '"type":"welcome"' in frame))
    assert welcome["view"] is None and welcome["version"] == head - 10
    assert store.read_records < 60  # the snapshot at 100 plus its tail, never the 122 events from version 1
    for client in (gm, ann):
        await client.close()


async def test_a_hello_listing_one_contest_many_times_costs_one_follow(start: Start) -> None:
    store = CountingStore()
    server = await start(store, resume_ring=2)
    gm, created = await open_duel(server)
    contest, ann_token = created.contest, created.invitations.seats["ann"]
    head = await adjust_many(server, contest, 30, "dup")
    store.read_records = 0
    follows = [{"contest": contest, "token": ann_token, "after": head - 20}] * 64
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "follow": follows}))
        await ws.send(json.dumps({"type": "ping", "nonce": 7}))
        kinds: list[str] = []
        while not kinds or kinds[-1] != "pong":
            kinds.append(json.loads(await ws.recv())["type"])
    assert kinds.count("welcome") == 1 and "error" not in kinds
    assert store.read_records <= 40
    await gm.close()


class CountingStore(MemoryStore):
    """Counts the records read (a resume's refold shows up here)."""

    read_records = 0
    secrets_read = 0

    async def load_secret(self, contest: str, name: str) -> bytes | None:
        self.secrets_read += 1
        return await super().load_secret(contest, name)

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        records = await super().read(contest, after, limit)
        self.read_records += len(records)
        return records


async def test_creating_is_rate_limited_per_connection_and_per_address(start: Start) -> None:
    server = await start(create_burst=3, create_rate=0.01, create_burst_address=5)
    first = await AgonClient.connect(server.ws_url)
    for _ in range(3):
        await first.create(duel())
    with pytest.raises(Refusal) as refused:
        await first.create(duel())
    assert refused.value.code == "rate/limited"
    await first.ping()  # the connection stays open
    second = await AgonClient.connect(server.ws_url)  # the same address: two more, then limited
    for _ in range(2):
        await second.create(duel())
    with pytest.raises(Refusal) as refused:
        await second.create(duel())
    assert refused.value.code == "rate/limited"
    assert len(await server.context.service.contests()) == 5
    for client in (first, second):
        await client.close()


def test_the_service_caches_a_bounded_number_of_contests() -> None:
    async def run() -> None:
        store = MemoryStore()
        service = ContestService(store, cache_size=5)
        for i in range(40):
            await service.create(GM, msgspec.structs.replace(duel(), contest=f"c{i}"))
            await service.execute(f"c{i}", GM, "a", gm_adjust(-1, "x"))
        assert service.cached <= 5
        _, state = await service.load("c0")  # evicted, loaded again from the store
        assert state.version == 3 and state.rules.fighters["orc"].ap == 11
        assert service.cached <= 5

    asyncio.run(run())


HUGE_CREATES = [
    ("title", {"title": "t" * 10_000}),
    ("seats", {"seats": [{"id": f"s{i}", "role": "player"} for i in range(1000)]}),
    ("contest", {"contest": "duel\u0430"}),  # a Cyrillic a: look-alike ids are refused
    ("contest", {"contest": "x" * 65}),
]


@pytest.mark.parametrize(("field", "change"), HUGE_CREATES)
def test_setup_sizes_and_contest_ids_are_bounded(field: str, change: dict[str, object]) -> None:
    frame = {"type": "create", "id": "c", "contest": {**to_builtins(duel()), **change}}
    with pytest.raises(Refused) as refused:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == "protocol/bad_field" and field in refused.value.message


async def test_a_connection_whose_token_expires_stops_receiving_patches(start: Start) -> None:
    server = await start(token_ttl=2)
    gm, created = await open_duel(server)
    contest = created.contest
    follow = {"contest": contest, "token": created.invitations.seats["ann"]}
    async with connect(server.ws_url) as ws:  # a bare connection: what the server sends, whatever a client does
        await ws.send(json.dumps({"type": "hello", "follow": [follow]}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        error = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
        while error["type"] in ("notice", "presence", "talk"):  # the story so far, who is here, the talk
            error = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
        assert (error["type"], error["code"], error["contest"]) == ("error", "auth/expired_token", contest)
        await adjust_many(server, contest, 2, "after-expiry")  # each patch leaves before the GM's ack
        await ws.send(json.dumps({"type": "ping", "nonce": 9}))
        kinds: list[str] = []
        while not kinds or kinds[-1] != "pong":
            kinds.append(json.loads(await ws.recv())["type"])
        assert kinds == ["pong"]  # no patch after the expiry, and the connection itself stays open
    await gm.close()


async def test_listing_an_owners_contests_reads_only_that_owners_contests(start: Start) -> None:
    store = CountingStore()
    server = await start(store, create_burst=100, create_burst_address=100)
    others = await AgonClient.connect(server.ws_url)
    for _ in range(20):
        await others.create(duel())
    mine = await AgonClient.connect(server.ws_url)
    await mine.create(duel(title="first"))
    await mine.create(duel(title="second"))  # the same connection: the same owner
    store.secrets_read = store.read_records = 0
    listed = await mine.contests()
    assert sorted(c.title for c in listed) == ["first", "second"]
    assert store.secrets_read <= 2 and store.read_records <= 2
    for client in (others, mine):
        await client.close()


async def test_one_hello_refolds_at_most_refold_limit_events_in_all(start: Start) -> None:
    store = MemoryStore()
    server = await start(store, refold_limit=40, resume_ring=2, create_burst=100)
    gm = await AgonClient.connect(server.ws_url)
    follows = []
    for _ in range(5):
        created = await gm.create(duel())
        head = await adjust_many(server, created.contest, 30, "long")
        follows.append({"contest": created.contest, "token": created.invitations.seats["ann"], "after": head - 5})
    other = await start(store=store, refold_limit=40, resume_ring=2)  # fresh feeds: nothing in memory
    welcomes: list[dict[str, Any]] = []
    async with connect(other.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "follow": follows}))
        while len(welcomes) < 5:
            message = json.loads(await ws.recv())
            welcomes += [message] if message["type"] == "welcome" else []
    resumed = [w for w in welcomes if w["view"] is None]
    assert len(resumed) == 1  # 27 events refolded from version 0; 27 more would pass the budget of 40: fresh views
    await gm.close()


async def test_a_flooding_client_that_reads_nothing_is_closed_within_the_close_timeout(start: Start) -> None:
    # A queue that never overflows: the close after rate/limited waits behind frames that cannot leave.
    server = await start(send_queue=100_000, close_timeout=1.0, burst=5000.0)  # the GM may play fast
    gm, created = await open_duel(server)
    contest = created.contest
    others = set(server.context.connections)
    slow, _ = await slow_client(server.ws_url, server.port, [Follow(contest, created.invitations.spectator)])
    (follower,) = server.context.connections - others
    reason = "a long account of the wound " * 70
    n = 0
    while follower.queued < 10:  # the socket to it is full: frames wait in its queue
        await gm.command(contest, gm_adjust(1 - 2 * (n % 2), f"{n} {reason}"))
        n += 1
    for i in range(5100):  # a flood: rate/limited, then a close queued behind the waiting frames
        await slow.send(json.dumps({"type": "ping", "nonce": i}))
    while not server.context.metrics.dropped.value("rate_limited"):
        await asyncio.sleep(0.01)
    async with asyncio.timeout(10):
        await follower.finished()
    assert follower not in server.context.connections
    await gm.close()


async def test_a_viewer_who_left_resumes_from_the_ring_of_patches(start: Start) -> None:
    """The feed keeps recent patches, also for a viewer who left: a reconnect a few batches later gets one
    patch made of them, without reading the store or refolding anything, and ends in sync."""
    store = CountingStore()
    server = await start(store)
    gm, created = await open_duel(server)
    contest, ann_token = created.contest, created.invitations.seats["ann"]
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, ann_token)], record_frames=True)
    left_at = await adjust_many(server, contest, 2, "here")  # past the feed's sparse checkpoints of whole states
    await ann.wait_version(contest, left_at)
    ann.abort()
    await asyncio.sleep(0.05)
    head = await adjust_many(server, contest, 5, "away")
    await gm.wait_version(contest, head)
    store.read_records = 0
    ann.frames.clear()
    await ann.reconnect()
    mirror = await ann.wait_version(contest, head)
    assert mirror.welcomes[-1].view is None and mirror.welcomes[-1].version == left_at
    assert [json.loads(f)["from"] for f in ann.frames if '"type":"patch"' in f] == [left_at]
    assert store.read_records == 0 and mirror.desyncs == 0
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, ann_token)])
    assert fresh.mirrors[contest].doc == mirror.doc
    for client in (gm, ann, fresh):
        await client.close()


async def test_a_frame_nested_thousands_deep_is_a_bad_frame_and_the_connection_stays_usable(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    server = await start(max_frame=256 * 1024)
    gm, created = await open_duel(server)
    deep = 30_000
    async with connect(server.ws_url, max_size=None) as ws:
        for frame in ('{"a":' * deep + "1" + "}" * deep, '{"a":' + "[" * deep + "]" * deep + "}"):
            await ws.send(frame)
            error = json.loads(await ws.recv())
            assert error["type"] == "error" and error["code"] == "protocol/bad_frame"
            assert "nested too deeply" in error["message"]
        # The connection stays open and usable: a hello follows the contest, a ping is answered.
        await ws.send(json.dumps({"type": "hello", "follow": [{"token": created.invitations.seats["ann"]}]}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "ping", "nonce": 7}))
        while (message := json.loads(await ws.recv()))["type"] != "pong":
            assert message["type"] in ("notice", "presence", "talk")
        assert message["nonce"] == 7
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info], [
        r.getMessage() for r in caplog.records
    ]
    await gm.close()
