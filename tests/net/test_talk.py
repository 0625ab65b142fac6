"""Table talk over real sockets: a line to the table reaches everyone at it (spectators only when the GM allows
it), a whisper reaches its sender's and its recipient's connections and not one frame of any other, undo and
rewind never touch the talk, every bound is refused with its code while the connection stays open, a resumed
follow gets the history, and a line said through one server reaches followers of another sharing Redis."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid

import msgspec
import pytest
from redis.asyncio import Redis

from clients.python.client import AgonClient, Refusal
from protocol import errors
from protocol.common import Seat
from protocol.events import CreateContest, Declare, Rewind, Undo
from protocol.messages import Created, Follow
from protocol.rulesets import extended as x
from protocol.talk import TalkSetting
from server.net.app import AgonServer
from server.store import MemoryStore, RedisStore
from server.store.redis import _key
from server.talk import RATE_LINES, talk_stream
from tests.net.conftest import Start
from tests.net.duel import ARIA_WINS, duel


def talk_table(spectators: bool = False, auditors_whispers: bool = False, contest: str | None = None) -> CreateContest:
    """The duel with names, a second GM seat, and the talk setting."""
    return msgspec.structs.replace(
        duel(contest=contest),
        seats=[
            Seat("gm", "gm", name="Gwen"),
            Seat("gm2", "gm"),
            Seat("ann", "player", ["aria"], name="Ann"),
            Seat("bob", "player", ["orc"], name="Bo"),
        ],
        talk=TalkSetting(spectators=spectators, auditors_whispers=auditors_whispers),
    )


class Table:
    """Everyone at a contest, each on a connection of its own that records every frame: the GM twice, the
    second GM seat, Ann twice, Bob, a spectator and an auditor."""

    def __init__(self, created: Created, clients: dict[str, AgonClient]) -> None:
        self.created = created
        self.contest = created.contest
        self.clients = clients

    def __getitem__(self, who: str) -> AgonClient:
        return self.clients[who]

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()


async def seated(url: str, request: CreateContest) -> Table:
    gm = await AgonClient.connect(url, record_frames=True)
    created = await gm.create(request)
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    auditor = await gm.invite(contest, "~auditor")

    async def join(token: str) -> AgonClient:
        return await AgonClient.connect(url, follow=[Follow(contest, token)], record_frames=True)

    clients = {
        "gm": gm,
        "gm-again": await join(tokens.gm),
        "gm2": await join(tokens.seats["gm2"]),
        "ann": await join(tokens.seats["ann"]),
        "ann-phone": await join(tokens.seats["ann"]),
        "bob": await join(tokens.seats["bob"]),
        "spectator": await join(tokens.spectator),
        "auditor": await join(auditor.token),
    }
    return Table(created, clients)


def said_texts(client: AgonClient, contest: str) -> list[str]:
    return [line.text for line in client.talk(contest)]


async def settled(table: Table) -> None:
    """Every frame sent so far has reached every client: a ping on each connection comes back after them."""
    for client in table.clients.values():
        await client.ping()


async def test_a_table_line_reaches_everyone_at_the_table_and_spectators_only_when_allowed(start: Start) -> None:
    server = await start()
    for spectators in (False, True):
        table = await seated(server.ws_url, talk_table(spectators=spectators))
        contest = table.contest
        line = await table["ann"].say(contest, "  Aria eyes the rope bridge  ")
        assert (line.n, line.from_, line.name, line.text) == (1, "ann", "Ann", "Aria eyes the rope bridge")
        assert line.to is msgspec.UNSET and line.version == table["ann"].mirrors[contest].version
        await settled(table)
        readers = {who for who, client in table.clients.items() if said_texts(client, contest)}
        everyone = {"gm", "gm-again", "gm2", "ann", "ann-phone", "bob", "auditor"}
        assert readers == (everyone | {"spectator"} if spectators else everyone)
        if not spectators:  # not a frame of the talk: a page shows no talk panel
            assert not [frame for frame in table["spectator"].frames if '"said"' in frame or '"talk"' in frame]
        # the acknowledgement is the copy carrying the say's id, on Ann's connection that said it, and only there
        with_id = {who for who, c in table.clients.items() for f in c.frames if '"said"' in f and '"id"' in f}
        assert with_id == {"ann"}
        await table.close()


async def test_a_whisper_reaches_its_sender_and_recipient_connections_and_no_other_frame(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)  # as `agon serve` logs
    server = await start()
    table = await seated(server.ws_url, talk_table(spectators=True))
    contest = table.contest
    secret = f"the-orc-is-bribed-{uuid.uuid4().hex[:8]}"
    whisper = await table["ann"].say(contest, f"psst {secret}", to="gm")
    assert (whisper.to, whisper.to_name) == ("gm", "Gwen")
    rolled = await table["gm"].say(contest, f"/roll 3d6+2 {secret}-roll", to="bob")
    assert rolled.roll is not msgspec.UNSET and rolled.to_name == "Bo"
    await table["bob"].say(contest, "to everyone")
    await settled(table)

    entitled = {"ann": ("ann", "ann-phone", "gm", "gm-again"), "gm": ("gm", "gm-again", "bob")}
    for sender, readers in entitled.items():
        line = whisper if sender == "ann" else rolled
        for who, client in table.clients.items():
            received = any(seen.n == line.n for seen in client.talk(contest))
            assert received is (who in readers), (who, line.n)
    for who in ("gm2", "spectator", "auditor"):  # another GM seat, a spectator, an auditor without the setting
        leaked = [frame for frame in table[who].frames if secret in frame]
        assert not leaked, (who, leaked)
        assert said_texts(table[who], contest) == ["to everyone"]
    leaked_in_bob = [frame for frame in table["bob"].frames if secret in frame and f"{secret}-roll" not in frame]
    assert not leaked_in_bob
    assert not [r for r in caplog.records if secret in r.getMessage() or secret in str(r.__dict__)]

    # the GM's timeline as the spectator saw it holds no whisper; as Bob saw it, the GM's whisper to him
    seen = await table["gm"].timeline(contest, viewer="~spectator")
    assert [line.text for line in seen.talk] == ["to everyone"]
    bobs = await table["gm"].timeline(contest, viewer="bob")
    assert [line.n for line in bobs.talk] == [rolled.n, 3]
    audited = await table["auditor"].timeline(contest, viewer="gm")
    assert [line.text for line in audited.talk] == ["to everyone"]  # an auditor reads no whisper here
    await table.close()


async def test_an_auditor_reads_whispers_when_the_contest_allows_it(start: Start) -> None:
    server = await start()
    table = await seated(server.ws_url, talk_table(auditors_whispers=True))
    whisper = await table["ann"].say(table.contest, "for the GM only", to="gm")
    line = await table["auditor"].next_line(table.contest, after=0)
    assert line == whisper
    await settled(table)
    assert said_texts(table["spectator"], table.contest) == [] and said_texts(table["gm2"], table.contest) == []
    await table.close()


async def test_undo_and_rewind_leave_the_talk_as_it_is(start: Start) -> None:
    server = await start()
    table = await seated(server.ws_url, talk_table())
    contest, gm = table.contest, table["gm"]
    first = await table["ann"].say(contest, "before the roll")
    declared = await table["ann"].command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=8)))
    await table["bob"].command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    rolled = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    second = await gm.say(contest, "/r d20 after the roll")
    assert second.version == rolled.version and first.version < rolled.version
    await gm.command(contest, Undo())
    await gm.command(contest, Rewind(to_version=declared.version))
    third = await table["bob"].say(contest, "after the rewind")
    assert third.n == 3
    fresh = await AgonClient.connect(server.ws_url, follow=[Follow(contest, table.created.invitations.seats["bob"])])
    assert [line.n for line in fresh.talk(contest)] == [1, 2, 3]
    assert fresh.talk(contest)[1] == second
    await fresh.close()
    await table.close()


async def test_every_bound_is_refused_with_its_code_and_the_connection_stays_open(start: Start) -> None:
    server = await start()
    table = await seated(server.ws_url, talk_table())
    contest, ann, gm = table.contest, table["ann"], table["gm"]

    async def refused(client: AgonClient, text: str, to: str | None = None) -> Refusal:
        with pytest.raises(Refusal) as caught:
            await client.say(contest, text, to=to)
        return caught.value

    assert (await refused(ann, "   \n ")).code == errors.TALK_EMPTY
    assert (await refused(ann, "x" * 501)).code == errors.TALK_TOO_LONG
    assert (await refused(ann, "hello", to="bob")).code == errors.TALK_NOT_ALLOWED
    assert (await refused(gm, "hello", to="gm2")).code == errors.TALK_NOT_ALLOWED
    assert (await refused(ann, "hello", to="nobody")).code == errors.TALK_UNKNOWN_SEAT
    assert (await refused(table["spectator"], "hello")).code == errors.TALK_NOT_ALLOWED
    assert (await refused(table["auditor"], "hello")).code == errors.TALK_NOT_ALLOWED
    for bad, why in [
        ("/roll", "write the dice"),
        ("/roll 2d6+", "ends with “+”"),
        ("/roll stealth", "“stealth” is neither dice"),
        ("/roll 21d6", "at most 20"),
        ("/roll d1", "2 to 1000 sides"),
        ("/roll 5000", "at most 1000"),
        ("/roll 3", "rolls no die"),
    ]:
        refusal = await refused(ann, bad)
        assert refusal.code == errors.TALK_BAD_ROLL and why in str(refusal), (bad, refusal)
    other = await AgonClient.connect(server.ws_url)
    with pytest.raises(Refusal) as caught:
        await other.say(contest, "hello")  # not following it
    assert caught.value.code == errors.WRONG_CONTEST
    await other.close()

    x500 = "x" * 500
    said = [await ann.say(contest, x500) for _ in range(RATE_LINES)]
    assert (await refused(ann, "one too many")).code == errors.TALK_TOO_FAST
    assert (await refused(table["ann-phone"], "from the phone")).code == errors.TALK_TOO_FAST  # per seat
    assert (await gm.say(contest, "the GM is not slowed by Ann")).n == said[-1].n + 1

    server.context.talk.log.max_lines = said[-1].n + 1
    assert (await refused(gm, "one line too many")).code == errors.TALK_FULL
    for client in table.clients.values():
        assert client.close_code is None
        await client.ping()
    await table.close()


async def test_the_same_say_sent_again_answers_the_line_stored_the_first_time(start: Start) -> None:
    server = await start()
    table = await seated(server.ws_url, talk_table())
    first = await table["ann"].say(table.contest, "only once", id="say-1")
    again = await table["ann"].say(table.contest, "only once", id="say-1")
    assert again == first
    assert [line.text for line in await server.context.talk.log.entries(table.contest)] == ["only once"]  # type: ignore[union-attr]
    await table.close()


async def test_a_resumed_follow_gets_the_talk_after_its_welcome(start: Start) -> None:
    server = await start()
    table = await seated(server.ws_url, talk_table())
    contest, bob = table.contest, table["bob"]
    await table["ann"].say(contest, "before Bob drops")
    bob.abort()
    await table["gm"].say(contest, "while Bob is away")
    await table["gm"].say(contest, "a whisper Bob missed", to="bob")
    await table["ann"].say(contest, "not for Bob", to="gm")
    bob.frames.clear()
    await bob.reconnect()
    kinds = [json.loads(frame)["type"] for frame in bob.frames]
    assert kinds.index("talk") == kinds.index("welcome") + 1 + kinds[kinds.index("welcome") + 1 :].count("patch")
    assert said_texts(bob, contest) == ["before Bob drops", "while Bob is away", "a whisper Bob missed"]
    talk = next(json.loads(frame) for frame in bob.frames if json.loads(frame)["type"] == "talk")
    assert talk["more"] is False and "not for Bob" not in json.dumps(talk)
    await table.close()


async def test_the_history_holds_the_last_200_lines_the_viewer_may_read(start: Start) -> None:
    server = await start(rate=10_000.0, burst=10_000.0)
    server.context.talk.log.rate.lines = 10_000
    table = await seated(server.ws_url, talk_table())
    contest = table.contest
    for i in range(205):
        await table["gm"].say(contest, f"line {i}", to="ann" if i % 2 else None)
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, table.created.invitations.seats["bob"])])
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, table.created.invitations.seats["ann"])])
    assert len(bob.talk(contest)) == 103 and not bob.mirrors[contest].earlier_talk  # every table line
    assert len(ann.talk(contest)) == 200 and ann.mirrors[contest].earlier_talk
    assert ann.talk(contest)[-1].text == "line 204"
    for client in (bob, ann):
        await client.close()
    await table.close()


async def test_a_line_said_through_one_server_reaches_followers_of_another_on_redis(
    start: Start, redis_url: str
) -> None:
    first_store, second_store = RedisStore(redis_url), RedisStore(redis_url)
    try:
        first: AgonServer = await start(first_store)
        second: AgonServer = await start(second_store)
        table = await seated(first.ws_url, talk_table(contest=f"talk-{uuid.uuid4().hex[:8]}"))
        contest, tokens = table.contest, table.created.invitations
        elsewhere = {
            who: await AgonClient.connect(second.ws_url, follow=[Follow(contest, token)], record_frames=True)
            for who, token in (("ann", tokens.seats["ann"]), ("bob", tokens.seats["bob"]), ("gm", tokens.gm))
        }
        said = await table["gm"].say(contest, "heard on both servers")
        whisper = await elsewhere["ann"].say(contest, "/r 2d10 only the GM sees this", to="gm")
        for client in [*elsewhere.values(), table["ann"], table["bob"]]:
            assert await client.next_line(contest, after=0, timeout=5) == said
        for client in (table["gm"], table["gm-again"], elsewhere["gm"], table["ann"]):
            assert await client.next_line(contest, after=said.n, timeout=5) == whisper
        both = await asyncio.gather(
            table["bob"].say(contest, "at once, here"), elsewhere["bob"].say(contest, "at once, there")
        )
        assert sorted(line.n for line in both) == [3, 4]
        for client in (elsewhere["gm"], table["gm"]):
            await client.next_line(contest, after=3, timeout=5)
            assert [line.n for line in client.talk(contest)] == [1, 2, 3, 4]
        await asyncio.sleep(0.3)
        assert not [f for f in [*table["bob"].frames, *elsewhere["bob"].frames] if "only the GM sees this" in f]
        for client in elsewhere.values():
            await client.close()
        await table.close()
    finally:
        for store in (first_store, second_store):
            await store.close()


async def test_talk_is_kept_outside_the_contests_log_and_listing(start: Start) -> None:
    store = MemoryStore()
    server = await start(store)
    table = await seated(server.ws_url, talk_table())
    head = await store.head(table.contest)
    await table["ann"].say(table.contest, "not an event")
    assert await store.head(table.contest) == head
    assert await store.contests() == [table.contest]
    await table.close()


async def test_talk_reaches_another_server_following_more_tables_than_a_redis_pool_holds(
    start: Start, redis_url: str
) -> None:
    """A server whose followers watch 130 tables tails 260 streams on Redis (each table's log and its talk), more
    than redis-py's default pool of 100 connections: each table's talk still reaches it from the other server."""
    first_store, second_store = RedisStore(redis_url), RedisStore(redis_url)
    tables, per_connection = 130, 50  # a connection follows 64 contests at most
    busy = {"rate": 1000.0, "burst": 1000.0}
    try:
        first = await start(
            first_store,
            **busy,
            create_rate=1000.0,
            create_burst=1000.0,
            create_rate_address=1000.0,
            create_burst_address=1000.0,
        )
        second = await start(second_store, **busy)
        gms = [await AgonClient.connect(first.ws_url) for _ in range(0, tables, per_connection)]
        watchers = [await AgonClient.connect(second.ws_url) for _ in range(0, tables, per_connection)]
        tag = uuid.uuid4().hex[:8]
        at: dict[str, tuple[AgonClient, AgonClient]] = {}  # each table's GM (first server) and watcher (second)
        for i in range(tables):
            gm, watcher = gms[i // per_connection], watchers[i // per_connection]
            created = await gm.create(talk_table(spectators=True, contest=f"crowd-{tag}-{i}"))
            await gm.follow(created.contest, created.invitations.gm)
            await watcher.follow(created.contest, created.invitations.spectator)
            at[created.contest] = (gm, watcher)
        said = {contest: await gm.say(contest, f"to {contest}") for contest, (gm, _) in at.items()}
        heard = {contest: await watcher.next_line(contest, after=0, timeout=10) for contest, (_, watcher) in at.items()}
        assert heard == said
        for client in (*gms, *watchers):
            await client.close()
    finally:
        for store in (first_store, second_store):
            await store.close()


async def test_a_follow_whose_talk_cannot_be_read_is_refused_never_welcomed_then_refused(
    start: Start, redis_url: str
) -> None:
    """The table talk is read from the store when a process starts following a contest's talk; when that read
    fails, the follow is refused (the client tries again), never welcomed first and refused after — which
    would leave a client sure it follows a contest its connection does not."""
    store, redis = RedisStore(redis_url), Redis.from_url(redis_url)
    try:
        server = await start(store)
        gm = await AgonClient.connect(server.ws_url)
        created = await gm.create(talk_table())
        talk = _key(talk_stream(created.contest), "events")
        await redis.set(talk, "not a stream")  # the talk's stream unreadable (WRONGTYPE)
        follow = [Follow(created.contest, created.invitations.seats["ann"])]
        with pytest.raises(Refusal):
            await AgonClient.connect(server.ws_url, follow=follow)
        await redis.delete(talk)  # readable again: the same follow succeeds
        ann = await AgonClient.connect(server.ws_url, follow=follow)
        assert ann.errors == [] and (await ann.say(created.contest, "here at last")).text == "here at last"
        for client in (gm, ann):
            await client.close()
    finally:
        await redis.aclose()
        await store.close()
