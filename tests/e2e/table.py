"""A duel at the table over real sockets: the GM who created it and the two players, each on a connection."""

from __future__ import annotations

from dataclasses import dataclass

from clients.python.client import AgonClient
from protocol.messages import Created, Follow
from tests.net.duel import duel


@dataclass
class Seated:
    created: Created
    gm: AgonClient
    ann: AgonClient
    bob: AgonClient

    @property
    def contest(self) -> str:
        return self.created.contest

    async def close(self) -> None:
        for client in (self.gm, self.ann, self.bob):
            await client.close()


async def seated_duel(ws_url: str) -> Seated:
    """A new duel (physical dice) with the GM, Ann and Bob following it."""
    gm = await AgonClient.connect(ws_url)
    created = await gm.create(duel())
    await gm.follow(created.contest, created.invitations.gm)
    seats = created.invitations.seats
    ann = await AgonClient.connect(ws_url, follow=[Follow(created.contest, seats["ann"])])
    bob = await AgonClient.connect(ws_url, follow=[Follow(created.contest, seats["bob"])])
    return Seated(created, gm, ann, bob)
