"""Presence over real sockets: who is at the table appears on a follow and goes on a close, an unfollow or a
revoked invitation, on this server and on another sharing the store; a crowd arriving costs a few frames, not
one per arrival each; auditors are counted for the GM only; and nothing of it is ever in the contest's log."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.events import CreateContest
from protocol.messages import Follow
from protocol.presence import Presence
from server.feed.presence import Roster
from server.store import MemoryStore, RedisStore, SqliteStore
from server.store.boards import board_for
from server.store.presence import Here
from tests.net.conftest import Start
from tests.net.duel import duel

SECOND = 1.0
"""A page shows a seat appearing or going within this many seconds."""


def named_duel(title: str = "Duel at the bridge") -> CreateContest:
    return msgspec.structs.replace(
        duel(title=title),
        seats=[
            Seat("gm", "gm"),
            Seat("ann", "player", ["aria"], name="Ann"),
            Seat("bob", "player", ["orc"], name="Bo"),
        ],
    )


def held(presence: Presence) -> dict[str, bool]:
    return {seat.seat: seat.here for seat in presence.seats}


def here(seat: str, present: bool = True) -> Callable[[Presence], bool]:
    return lambda presence: held(presence)[seat] is present


async def join(url: str, contest: str, token: str) -> AgonClient:
    return await AgonClient.connect(url, follow=[Follow(contest, token)], record_frames=True)


async def test_seats_and_spectators_appear_on_a_follow_and_go_on_a_close_or_an_unfollow(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(named_duel())
    contest, tokens = created.contest, created.invitations
    created_at = await server.context.service.head(contest)
    await gm.follow(contest, tokens.gm)
    first = await gm.wait_presence(contest, here("gm"))
    assert [(s.seat, s.role, s.name, s.contestants, s.here) for s in first.seats] == [
        ("gm", "gm", msgspec.UNSET, [], True),
        ("ann", "player", "Ann", ["aria"], False),
        ("bob", "player", "Bo", ["orc"], False),
    ]
    assert (first.spectators, first.auditors) == (0, 0)
    kinds = [json.loads(frame)["type"] for frame in gm.frames]
    assert kinds.index("presence") > kinds.index("welcome")  # right after the welcome (and its story so far)

    ann = await join(server.ws_url, contest, tokens.seats["ann"])
    mine = ann.presence(contest)
    assert mine is not None and held(mine) == {"gm": True, "ann": True, "bob": False}  # sent with the welcome
    assert mine.auditors is msgspec.UNSET  # a player is not told of auditors
    await gm.wait_presence(contest, here("ann"), timeout=SECOND)

    watcher = await join(server.ws_url, contest, tokens.spectator)
    await gm.wait_presence(contest, lambda p: p.spectators == 1, timeout=SECOND)
    await ann.wait_presence(contest, lambda p: p.spectators == 1, timeout=SECOND)

    await ann.close()  # the page closes
    await gm.wait_presence(contest, here("ann", False), timeout=SECOND)
    await watcher.wait_presence(contest, here("ann", False), timeout=SECOND)

    await watcher.unfollow(contest)
    await gm.wait_presence(contest, lambda p: p.spectators == 0, timeout=SECOND)

    assert await server.context.service.head(contest) == created_at  # never logged: the contest is where it was
    await asyncio.gather(gm.close(), watcher.close())


async def test_a_revoked_invitation_stops_counting_at_once(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(named_duel())
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    bob = await join(server.ws_url, contest, tokens.seats["bob"])
    await gm.wait_presence(contest, here("bob"), timeout=SECOND)
    await gm.invite(contest, "bob")  # the GM re-issues Bo's link: the old one is revoked
    await gm.wait_presence(contest, here("bob", False), timeout=SECOND)
    await bob.close()
    await gm.close()


async def test_auditors_are_counted_for_the_gm_and_for_auditors_only(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(named_duel())
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    auditor = await join(server.ws_url, contest, (await gm.invite(contest, "~auditor")).token)
    ann = await join(server.ws_url, contest, tokens.seats["ann"])
    await gm.wait_presence(contest, lambda p: p.auditors == 1 and held(p)["ann"], timeout=SECOND)
    assert (await auditor.wait_presence(contest, here("ann"), timeout=SECOND)).auditors == 1
    told = ann.presence(contest)
    assert told is not None and told.spectators == 0 and told.auditors is msgspec.UNSET
    assert not any('"auditors"' in frame for frame in ann.frames)
    await asyncio.gather(gm.close(), auditor.close(), ann.close())


async def test_a_crowd_arriving_together_is_told_in_a_few_frames(start: Start) -> None:
    server = await start(max_connections_address=200)
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(named_duel())
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    crowd = await asyncio.gather(*(join(server.ws_url, contest, tokens.spectator) for _ in range(40)))
    await gm.wait_presence(contest, lambda p: p.spectators == 40, timeout=5)
    await asyncio.sleep(0.3)  # whatever is still on its way
    frames = sum('"type":"presence"' in frame for frame in gm.frames)
    assert frames <= 15, f"the GM got {frames} presence frames for 40 arrivals"
    each = [sum('"type":"presence"' in frame for frame in c.frames) for c in crowd]
    assert max(each) <= 15 and sum(each) < 40 * 15
    await asyncio.gather(gm.close(), *(c.close() for c in crowd))


async def test_servers_sharing_a_store_see_each_others_seats(start: Start) -> None:
    store = MemoryStore()
    first, second = await start(store), await start(store)
    gm = await AgonClient.connect(first.ws_url)
    created = await gm.create(named_duel())
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    ann = await join(second.ws_url, contest, tokens.seats["ann"])
    await gm.wait_presence(contest, here("ann"), timeout=SECOND)
    await ann.wait_presence(contest, here("gm"), timeout=SECOND)
    await ann.close()
    await gm.wait_presence(contest, here("ann", False), timeout=SECOND)
    await gm.close()


async def test_servers_sharing_a_sqlite_file_see_each_others_seats(start: Start, tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    one, two = SqliteStore(path, poll=0.1), SqliteStore(path, poll=0.1)
    try:
        first, second = await start(one), await start(two)
        gm = await AgonClient.connect(first.ws_url)
        created = await gm.create(named_duel())
        contest, tokens = created.contest, created.invitations
        await gm.follow(contest, tokens.gm)
        ann = await join(second.ws_url, contest, tokens.seats["ann"])
        await ann.wait_presence(contest, here("gm"), timeout=SECOND)
        await gm.wait_presence(contest, here("ann"), timeout=SECOND)
        await ann.close()
        await gm.wait_presence(contest, here("ann", False), timeout=SECOND)
        await gm.close()
        await first.shutdown()
        await second.shutdown()
    finally:
        await one.close()
        await two.close()


async def test_a_presence_frame_carries_no_token_and_nothing_of_another_contest(start: Start) -> None:
    server = await start()
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(named_duel())
    other = await gm.create(named_duel("next door"))
    contest, tokens = created.contest, created.invitations
    await gm.follow(contest, tokens.gm)
    next_door = await join(server.ws_url, other.contest, other.invitations.spectator)
    ann = await join(server.ws_url, contest, tokens.seats["ann"])
    await gm.wait_presence(contest, here("ann"), timeout=SECOND)
    secrets = [tokens.gm, tokens.spectator, tokens.owner, *tokens.seats.values()]
    for client in (gm, ann, next_door):
        frames = [json.loads(f) for f in client.frames if '"type":"presence"' in f]
        assert frames, "no presence frame to check"
        for frame in frames:
            assert set(frame) <= {"type", "contest", "seats", "spectators", "auditors"}
            assert not [s for s in secrets if s in json.dumps(frame)]
    assert all(json.loads(f)["contest"] == other.contest for f in next_door.frames if '"type":"presence"' in f)
    await asyncio.gather(gm.close(), ann.close(), next_door.close())


async def test_a_process_that_dies_without_a_word_stops_counting_once_its_entry_lapses(
    start: Start, redis_url: str
) -> None:
    """Another process (a board of its own here) holds Ann's seat, then is killed: it never publishes again, and
    the GM's page shows Ann away once its entry lapses (``ttl``), found at this server's next heartbeat."""
    store = RedisStore(redis_url)
    elsewhere = RedisStore(redis_url)
    try:
        server = await start(store)
        server.backend.presence = Roster(store, ttl=1.5)  # heartbeats every 0.5 s
        gm = await AgonClient.connect(server.ws_url)
        created = await gm.create(named_duel())
        contest = created.contest
        await gm.follow(contest, created.invitations.gm)
        killed = board_for(elsewhere, lambda contest: None, ttl=1.0)
        await killed.share(contest, Here(seats=["ann"]))
        await gm.wait_presence(contest, here("ann"), timeout=SECOND)
        started = time.monotonic()
        await gm.wait_presence(contest, here("ann", False), timeout=5)
        assert time.monotonic() - started < 1.0 + 0.5 + SECOND
        await gm.close()
        await server.shutdown()
    finally:
        await elsewhere.close()
        await store.close()
