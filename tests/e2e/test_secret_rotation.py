"""The token secret changed as docs/deploy.md says (the old one kept as AGON_SECRET_PREVIOUS, the processes restarted
one at a time): while some processes have the new secret and others only the old one, each relays the contests the
others host, whichever way; once every process has the new secret and only some still the old one, too."""

from __future__ import annotations

import time
import uuid

from clients.python.client import AgonClient
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory, ServerProcess
from tests.net.duel import duel

OLD = "the secret every process had until today"
NEW = "the secret every process has from today on"


def _keeping_old() -> dict[str, str]:
    return {"AGON_SECRET_PREVIOUS": OLD, "AGON_SECRET_PREVIOUS_UNTIL": str(int(time.time()) + 3600)}


async def _relayed(host: ServerProcess, relay: ServerProcess, creator: ServerProcess) -> None:
    """A contest created on ``creator`` (its invitations signed with its secret), hosted by ``host`` (its GM's
    process) and relayed by ``relay`` to a player who commands there."""
    maker = await AgonClient.connect(creator.ws_url)
    created = await maker.create(duel(contest=f"rotating-{uuid.uuid4().hex[:8]}"))
    await maker.close()
    contest, invitations = created.contest, created.invitations
    gm = await AgonClient.connect(host.ws_url, follow=[Follow(contest, invitations.gm)])
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    try:
        ack = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
        for client in (gm, ann):
            assert (await client.wait_version(contest, ack.version)).in_sync
    finally:
        await gm.close()
        await ann.close()


async def test_processes_relay_each_other_while_the_secret_is_rotated(
    agon_server: ServerFactory, redis_url: str
) -> None:
    # Halfway through the first rolling restart: one process has the new secret, one only the old.
    restarted = agon_server(store=redis_url, secret=NEW, env=_keeping_old())
    waiting = agon_server(store=redis_url, secret=OLD)
    await _relayed(host=waiting, relay=restarted, creator=waiting)
    await _relayed(host=restarted, relay=waiting, creator=waiting)
    # Halfway through the second one, once the grace period is over: the old secret dropped from one process.
    dropped = agon_server(store=redis_url, secret=NEW)
    await _relayed(host=restarted, relay=dropped, creator=dropped)
    await _relayed(host=dropped, relay=restarted, creator=dropped)
    for server in (restarted, waiting, dropped):
        assert "failed its handshake" not in server.output()
