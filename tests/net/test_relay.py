"""Two server processes on one real Redis (in this process, over loopback sockets): the first viewer's process
hosts the contest and folds it, the other relays its frames. A relay's viewer sees exactly what the same viewer
sees on the host; frames lost on the way are noticed; a host that shuts down hands the contest over at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import msgspec

from clients.python.client import AgonClient
from protocol import errors
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.feed.relay import ClusterFeed
from server.feed.relay_wire import Answer, Frames, decoder, encoder
from server.net.app import AgonServer
from server.store.redis import RedisStore
from server.store.redis_bus import ALIVE
from tests.net.conftest import Start
from tests.net.duel import duel
from tests.net.test_faults import gm_adjust
from tests.net.test_server import open_duel


async def two_processes(start: Start, redis_url: str) -> tuple[AgonServer, AgonServer]:
    return await start(RedisStore(redis_url)), await start(RedisStore(redis_url))


def on_the_way(host: AgonServer, rewrite: Callable[[Frames], Frames | None]) -> None:
    """Every ``frames`` message ``host`` sends a relay from now on goes through ``rewrite`` (None: lost)."""
    bus = host.backend.hub.relays.bus  # type: ignore[union-attr]
    sent = bus.post

    async def posting(process: str, data: bytes) -> int:
        message = decoder.decode(data)
        if isinstance(message, Frames):
            rewritten = rewrite(message)
            if rewritten is None:
                return 1
            data = encoder.encode(rewritten)
        return await sent(process, data)

    bus.post = posting  # type: ignore[method-assign]


def cluster_feed(server: AgonServer, contest: str) -> ClusterFeed:
    feed = server.backend.hub.get(contest)
    assert isinstance(feed, ClusterFeed)
    return feed


async def test_a_relays_viewers_see_what_the_host_shows_them_and_the_relay_builds_no_view(
    start: Start, redis_url: str
) -> None:
    host, relay = await two_processes(start, redis_url)
    gm = await AgonClient.connect(host.ws_url)
    created = await gm.create(duel())
    contest, seats = created.contest, created.invitations.seats
    await gm.follow(contest, created.invitations.gm)
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, seats["ann"])])
    watcher = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.spectator)])
    assert cluster_feed(host, contest).hosting and not cluster_feed(relay, contest).hosting
    fanned_out = relay.context.metrics.fanout_seconds.count()

    bob = await AgonClient.connect(host.ws_url, follow=[Follow(contest, seats["bob"])])
    sealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="feint", bid=5)))
    adjusted = await gm.command(contest, gm_adjust(-1, "a scratch"))
    # The same seat on the host: the relay's copy is the host's, sealed declarations sealed alike.
    ann_on_host = await AgonClient.connect(host.ws_url, follow=[Follow(contest, seats["ann"])])
    watcher_on_host = await AgonClient.connect(host.ws_url, follow=[Follow(contest, created.invitations.spectator)])
    for here, there in ((ann, ann_on_host), (watcher, watcher_on_host)):
        mirror = await here.wait_version(contest, adjusted.version)
        assert mirror.in_sync and mirror.doc == (await there.wait_version(contest, adjusted.version)).doc
        assert "feint" not in str(mirror.doc)
    assert sealed.version < adjusted.version
    assert relay.context.metrics.fanout_seconds.count() == fanned_out  # folded and viewed on the host only
    assert relay.context.metrics.relay_lag_seconds.count() >= 2
    # A command arriving at the relay is decided there; its ack follows its patch, relayed from the host.
    ann_declared = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
    assert ann.mirrors[contest].version >= ann_declared.version
    for client in (gm, ann, watcher, bob, ann_on_host, watcher_on_host):
        await client.close()


async def test_frames_lost_on_the_way_are_noticed_and_the_relays_viewers_attached_again(
    start: Start, redis_url: str
) -> None:
    host, relay = await two_processes(start, redis_url)
    gm, created = await open_duel(host)
    contest = created.contest
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    welcomes = len(ann.mirrors[contest].welcomes)
    # The next message from the host to the relay is lost (pub/sub delivers at most once).
    lost: list[int] = []

    def losing(message: Frames) -> Frames | None:
        if message.frames and not lost:
            lost.append(message.version)
            return None
        return message

    on_the_way(host, losing)
    first = await gm.command(contest, gm_adjust(-1, "lost on the way"))
    second = await gm.command(contest, gm_adjust(-1, "noticed"))
    assert lost == [first.version]
    mirror = ann.mirrors[contest]
    await ann.wait_for(lambda: mirror.version == second.version and mirror.in_sync)
    assert len(mirror.welcomes) > welcomes  # attached again from the version she held
    fresh = await AgonClient.connect(host.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    assert fresh.mirrors[contest].doc == mirror.doc
    for client in (gm, ann, fresh):
        await client.close()


async def test_a_viewer_the_host_cannot_attach_again_for_now_is_asked_for_again_never_turned_out(
    start: Start, redis_url: str
) -> None:
    """Frames lost on the way make the relay attach its viewer again, and the host fails to (its store away a
    moment: ``server/internal``): the viewer was welcomed long ago, so the relay asks again rather than turning
    it out with an error its client would take for a failed follow, and the viewer sees the contest go on."""
    host, relay = await two_processes(start, redis_url)
    gm, created = await open_duel(host)
    contest = created.contest
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    lost: list[int] = []  # the version whose frames were lost
    failed: list[int] = []  # the viewers the host failed to attach again

    def failing(message: Frames) -> Frames | None:
        if message.frames and not lost:
            lost.append(message.version)  # lost on the way: the relay attaches Ann again
            return None
        if lost and message.answers and not failed:
            failed.extend(answer.follower for answer in message.answers)
            return msgspec.structs.replace(
                message, answers=[Answer(a.follower, errors.INTERNAL, "internal server error") for a in message.answers]
            )
        return message

    on_the_way(host, failing)
    await gm.command(contest, gm_adjust(-1, "lost on the way"))
    second = await gm.command(contest, gm_adjust(-1, "noticed"))
    mirror = ann.mirrors[contest]
    await ann.wait_for(lambda: mirror.version >= second.version and mirror.in_sync)
    assert failed  # the host refused once
    third = await gm.command(contest, gm_adjust(-1, "and on"))
    await ann.wait_version(contest, third.version)
    assert ann.errors == [] and contest not in ann.lost
    for client in (gm, ann):
        await client.close()


async def test_a_follow_whose_welcome_came_but_not_the_hosts_answer_is_followed_not_refused(
    start: Start, redis_url: str
) -> None:
    """The host attaches a relay's viewer and sends its welcome, and the answer to the relay is lost (the host
    dies, or the message goes astray): the viewer was welcomed, so it follows the contest. Refusing it after
    its welcome would leave a client sure it follows a contest its connection does not."""
    host = await start(RedisStore(redis_url))
    relay = await start(RedisStore(redis_url), ack_wait=0.5)
    gm, created = await open_duel(host)
    contest = created.contest
    withheld: list[int] = []

    def withholding(message: Frames) -> Frames | None:
        if message.answers and not withheld:
            withheld.extend(answer.follower for answer in message.answers)
            return msgspec.structs.replace(message, answers=[])
        return message

    on_the_way(host, withholding)
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    assert withheld
    await asyncio.sleep(1.0)  # past the relay's wait for the answer
    acked = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
    adjusted = await gm.command(contest, gm_adjust(-1, "seen by Ann"))
    mirror = await ann.wait_version(contest, adjusted.version)
    assert acked.version < adjusted.version and mirror.in_sync
    assert ann.errors == []  # welcomed, and never told the follow failed
    for client in (gm, ann):
        await client.close()


async def test_a_host_shutting_down_hands_its_contest_to_a_relay_at_once(start: Start, redis_url: str) -> None:
    host, relay = await two_processes(start, redis_url)
    gm, created = await open_duel(host)
    contest = created.contest
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.seats["ann"])])
    gm2 = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, created.invitations.gm)])
    await gm.close()
    began = time.monotonic()
    await host.shutdown()
    feed = cluster_feed(relay, contest)
    await _until(lambda: feed.hosting, ALIVE)  # told by the host, not waiting for its liveness to expire
    assert time.monotonic() - began < ALIVE
    assert relay.context.metrics.takeovers.value() == 1
    acked = await gm2.command(contest, gm_adjust(-2, "on the new host"))
    mirror = await ann.wait_version(contest, acked.version)
    assert mirror.in_sync and ann.errors == [] and contest not in ann.lost  # her connection never dropped
    for client in (ann, gm2):
        await client.close()


async def _until(check: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)


async def test_viewers_arriving_at_once_on_three_processes_make_exactly_one_of_them_host(
    start: Start, redis_url: str
) -> None:
    servers = [await start(RedisStore(redis_url)) for _ in range(3)]
    gm = await AgonClient.connect(servers[0].ws_url)
    created = await gm.create(duel())
    contest, seats = created.contest, created.invitations.seats
    tokens = [created.invitations.gm, seats["ann"], seats["bob"], created.invitations.spectator] * 3
    viewers = await asyncio.gather(
        *(AgonClient.connect(servers[i % 3].ws_url, follow=[Follow(contest, token)]) for i, token in enumerate(tokens))
    )
    feeds = [cluster_feed(server, contest) for server in servers]
    assert sum(feed.hosting for feed in feeds) == 1
    assert {feed.host for feed in feeds} == {next(f.me for f in feeds if f.hosting)}
    acked = await viewers[4].command(contest, gm_adjust(-1, "one order for all"))  # a GM on the second
    docs = [(await viewer.wait_version(contest, acked.version)).doc for viewer in viewers]
    assert all(doc == docs[0] for doc in docs[::4])  # the GM's view, alike on the three processes
    for client in (gm, *viewers):
        await client.close()
