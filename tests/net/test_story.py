"""The story so far for a viewer who arrives at a long log: the newest events as notices, bounded, after one
notice that says how many earlier events exist; the work of a feed that starts on a long log is bounded too."""

from __future__ import annotations

import json

from clients.python.client import AgonClient
from protocol.events import Undo
from protocol.messages import Follow
from tests.net.conftest import Start
from tests.net.test_faults import GM, CountingStore, adjust_many
from tests.net.test_server import open_duel


def notices(client: AgonClient) -> list[dict[str, object]]:
    """Every notice the client received: notice messages, and the lines live patches carry."""
    told: list[dict[str, object]] = []
    for message in map(json.loads, client.frames):
        if message["type"] == "notice":
            told.append(message)
        elif message["type"] == "patch":
            told.extend(message.get("notices", []))
    return told


async def test_a_late_viewer_of_a_long_log_gets_the_newest_events_and_a_count_of_the_earlier_ones(
    start: Start,
) -> None:
    store = CountingStore()
    first = await start(store, resume_ring=4)  # the story so far: the newest 16 events (4 × resume_ring)
    gm, created = await open_duel(first)
    contest, spectator = created.contest, created.invitations.spectator
    head = await adjust_many(first, contest, 40, "long")

    # a spectator on the live process, and one on a process whose feed starts now on the long log
    other = await start(store, resume_ring=4)
    late = [
        await AgonClient.connect(server.ws_url, follow=[Follow(contest, spectator)], record_frames=True)
        for server in (first, other)
    ]
    for client in late:
        await client.ping()  # every frame of the welcome has arrived
        told = notices(client)
        assert told[0]["kind"] == "earlier" and told[0]["version"] == head - 16
        assert told[0]["text"] == f"… {head - 16} earlier events — the GM's replay viewer has them all"
        assert [n["version"] for n in told[1:]] == list(range(head - 15, head + 1))
        assert all("long" in str(n["text"]) for n in told[1:])
    # the GM's console is pointed at the replay
    gm_late = await AgonClient.connect(
        other.ws_url, follow=[Follow(contest, created.invitations.gm)], record_frames=True
    )
    await gm_late.ping()
    assert notices(gm_late)[0]["text"] == f"… {head - 16} earlier events — open the replay for all"
    for client in (gm, gm_late, *late):
        await client.close()


async def test_a_feed_starting_further_from_any_state_than_the_refold_limit_tells_only_the_count(
    start: Start,
) -> None:
    store = CountingStore()
    first = await start(store, resume_ring=4)
    first.context.service.snapshot_every = 0  # no snapshot: the only state before the story is version 1
    gm, created = await open_duel(first)
    contest = created.contest
    head = await adjust_many(first, contest, 60, "far")
    other = await start(store, resume_ring=4, refold_limit=20)
    other.context.service.snapshot_every = 0
    store.read_records = 0
    spectator = await AgonClient.connect(
        other.ws_url, follow=[Follow(contest, created.invitations.spectator)], record_frames=True
    )
    await spectator.ping()
    told = notices(spectator)
    assert [(n["kind"], n["version"]) for n in told] == [("earlier", head)]
    assert store.read_records <= head  # loading the contest; the story read nothing more
    # the live feed goes on telling what happens next
    await adjust_many(first, contest, 1, "next")
    await spectator.wait_version(contest, head + 1)
    await spectator.ping()
    assert [n["version"] for n in notices(spectator)][1:] == [head + 1]
    for client in (gm, spectator):
        await client.close()


async def test_a_feed_starting_from_a_snapshot_before_an_undo_still_tells_the_story(start: Start) -> None:
    """A snapshot holds no history, and an undo after it cannot be folded onto it: the feed folds the log
    from the start when that is within the refold limit (the undo is in the story), else tells the count."""
    store = CountingStore()
    first = await start(store, resume_ring=4)
    first.context.service.snapshot_every = 10
    gm, created = await open_duel(first)
    contest = created.contest
    await adjust_many(first, contest, 24, "before")
    await first.context.service.drain()
    snapshot = await first.context.service.snapshot(contest)
    assert snapshot is not None and snapshot.version == 20
    first.context.service.snapshot_every = 0
    await first.context.service.execute(contest, GM, "undo-it", Undo())  # version 26
    head = await adjust_many(first, contest, 10, "after")  # the story: 21..36, folded from the snapshot at 20
    for limit, story in ((5000, True), (10, False)):
        other = await start(store, resume_ring=4, refold_limit=limit)
        spectator = await AgonClient.connect(
            other.ws_url, follow=[Follow(contest, created.invitations.spectator)], record_frames=True
        )
        await spectator.ping()
        told = notices(spectator)
        if story:
            assert [n["version"] for n in told] == [head - 16, *range(head - 15, head + 1)]
            assert "undo" in str(told[6]["kind"]), told[6]
        else:
            assert [(n["kind"], n["version"]) for n in told] == [("earlier", head)]
        await spectator.close()
    await gm.close()
