"""Byte-level secrecy: while a declaration is sealed, no frame sent to anyone but its author and the GM
carries its payload or its salt, no frame to anyone carries the dice seed before it is revealed, and a whisper
reaches no frame but those of its two seats, nor the server's log."""

from __future__ import annotations

from pathlib import Path

from clients.python.client import AgonClient
from protocol.codec import decode
from protocol.events import Conclude, Declare, Declared, Envelope
from protocol.messages import Follow
from protocol.presence import Presence
from protocol.rulesets import extended as x
from server.service import ContestService
from server.store.sqlite import SqliteStore
from tests.e2e.conftest import ServerFactory
from tests.net.duel import duel

ACTION = "ZEPHYR-secret-feint-7731"
WHISPER = "NIGHTSHADE-whispered-4242"
BID = 13


def leaks(frames: list[str], secrets: list[str]) -> list[tuple[str, str]]:
    return [(secret, frame) for frame in frames for secret in secrets if secret in frame]


async def test_sealed_payloads_and_the_dice_seed_never_reach_anyone_else(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    database = tmp_path / "secrecy.sqlite3"
    server = agon_server(store=f"sqlite:{database}")
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(duel(dice="server"))
    contest, invitations = created.contest, created.invitations
    other = await gm.create(duel(dice="server", title="next door"))
    await gm.follow(contest, invitations.gm)

    async def joined(contest_id: str, token: str) -> AgonClient:
        return await AgonClient.connect(server.ws_url, follow=[Follow(contest_id, token)], record_frames=True)

    ann = await joined(contest, invitations.seats["ann"])
    bob = await joined(contest, invitations.seats["bob"])
    watcher = await joined(contest, invitations.spectator)
    next_door = [
        await joined(other.contest, other.invitations.gm),
        await joined(other.contest, other.invitations.seats["ann"]),
        await joined(other.contest, other.invitations.spectator),
    ]

    store = SqliteStore(database)
    try:
        seed = await ContestService(store).seed(contest)
        assert seed is not None and len(seed) == 32

        declared = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action=ACTION, bid=BID)))
        envelope = decode((await store.read(contest, declared.version - 1, limit=1))[0].data, Envelope)
        assert isinstance(envelope.event, Declared) and envelope.event.salt is not None
        salt = envelope.event.salt

        # Someone joins and someone reconnects while the declaration is sealed: fresh views and resumes too.
        late = await joined(contest, invitations.spectator)
        await bob.reconnect()
        everyone = [gm, ann, bob, watcher, late, *next_door]
        for client in [gm, ann, bob, watcher, late]:
            await client.wait_version(contest, declared.version)
        for client in next_door:
            await client.ping()  # whatever was on its way has arrived

        sealed = [ACTION, f'"bid":{BID}', salt]
        seed_texts = [seed.hex(), seed.hex().upper()]
        for client in [bob, watcher, late, *next_door]:
            assert not leaks(client.frames, sealed + seed_texts), client.mirrors.keys()
        # Who is at the table (presence) is told to every follower, and scanned above with every other frame: it
        # carries no token either, and nothing of a contest to the followers of another.
        tokens = [invitations.gm, invitations.spectator, invitations.owner, *invitations.seats.values()]
        for client in everyone:
            told = [frame for frame in client.frames if '"type":"presence"' in frame]
            assert told, "every follower is told who is at the table"
            assert not leaks(told, tokens + sealed + seed_texts)
        for client in next_door:
            told = [decode(frame, Presence) for frame in client.frames if '"type":"presence"' in frame]
            assert {presence.contest for presence in told} == {other.contest}
        # The author and the GM do see it, so the check above looks for the right bytes.
        assert leaks(ann.frames, [ACTION]) and leaks(gm.frames, [ACTION])
        assert not leaks(ann.frames + gm.frames, seed_texts)
        watched = watcher.mirrors[contest].doc
        assert watched is not None and watched["seal"]["declared"][0]["commitment"] == envelope.event.commitment

        # A whisper (a player to the GM, the GM's roll to a player) reaches its two seats, never another frame, nor
        # the server's log.
        await ann.say(contest, WHISPER, to="gm")
        await gm.say(contest, f"/roll 2d6 {WHISPER}-roll", to="ann")
        for client in everyone:
            await client.ping()
        for client in [bob, watcher, late, *next_door]:
            assert not leaks(client.frames, [WHISPER]), client.mirrors.keys()
        for client in (ann, gm):
            assert {secret for secret, _ in leaks(client.frames, [f'{WHISPER}"', f"{WHISPER}-roll"])} == {
                f'{WHISPER}"',
                f"{WHISPER}-roll",
            }
        assert WHISPER not in server.output()

        # The reveal reaches everyone together; server dice roll; the seed stays secret until the end.
        revealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="parry", bid=2)))
        rolled = await gm.command(contest, x.Roll())
        for client in [gm, ann, bob, watcher, late]:
            mirror = await client.wait_version(contest, rolled.version)
            assert revealed.version in [end for _, end in mirror.patches]  # the reveal, to everyone at once
            assert leaks(client.frames, [ACTION])
        for client in everyone:
            assert not leaks(client.frames, seed_texts)

        concluded = await gm.command(contest, Conclude())
        await watcher.wait_version(contest, concluded.version)
        assert leaks(watcher.frames, [seed.hex()])  # revealed at the end, so the dice can be checked
        for client in next_door:
            await client.ping()
            assert not leaks(client.frames, sealed + seed_texts)
    finally:
        await store.close()
    for client in everyone:
        await client.close()
