"""Who opened which contests: the owner id kept as each contest's server-only secret ``owner`` in the store, so
every process sharing the store lists the same contests for the same owner token, and an index per owner lists
them without reading any other contest."""

from __future__ import annotations

import asyncio

from protocol.codec import decode
from protocol.events import ContestCreated, Envelope
from protocol.messages import ContestSummary
from server.store.port import EventStore

OWNER = "owner"
"""The name of the store secret holding a contest's owner id."""


def owner_index(owner: str) -> str:
    """The store index listing an owner's contests (each still checked against its ``owner`` secret)."""
    return f"owner:{owner}"


class Owners:
    def __init__(self, store: EventStore) -> None:
        self._store = store

    async def record(self, contest: str, owner: str) -> None:
        """``owner`` opened ``contest``."""
        await self._store.save_secret(contest, OWNER, owner.encode())
        await self._store.index_add(owner_index(owner), contest)

    async def contests(self, owner: str) -> list[ContestSummary]:
        """The owner's contests, sorted by id."""
        ids = await self._store.index_members(owner_index(owner))
        owners = await asyncio.gather(*(self._store.load_secret(contest, OWNER) for contest in ids))
        mine = [contest for contest, owned_by in zip(ids, owners, strict=True) if owned_by == owner.encode()]
        return list(await asyncio.gather(*(self._summary(contest) for contest in mine)))

    async def _summary(self, contest: str) -> ContestSummary:
        first = await self._store.read(contest, 0, limit=1)
        head = await self._store.head(contest)
        created = decode(first[0].data, Envelope).event if first else None
        if not isinstance(created, ContestCreated):
            return ContestSummary(contest=contest, title="", ruleset="", version=head)
        return ContestSummary(contest=contest, title=created.title, ruleset=created.ruleset, version=head)
