"""Opening contests and listing them for their owner.

Whoever can reach the server may open a contest, unless ``AGON_CREATE_KEY`` is set (then the request must
carry it). The creator receives the invitations — a token per seat, one for spectators — and an owner
token. The owner id is kept as the contest's server-only secret ``owner`` in the store, so every process
sharing the store lists the same contests for the same owner token; an index per owner lists them
without reading any other contest.
"""

from __future__ import annotations

import asyncio
import hmac

from protocol import errors
from protocol.codec import decode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import ContestCreated, CreateContest, Envelope
from protocol.messages import ContestSummary, Created, Invitations
from server.net.auth import SPECTATOR, Tokens, new_owner_id
from server.net.settings import Settings
from server.service import ContestService
from server.store.port import EventStore

OWNER = "owner"
"""The name of the store secret holding a contest's owner id."""


def owner_index(owner: str) -> str:
    """The store index listing an owner's contests (each still checked against its ``owner`` secret)."""
    return f"owner:{owner}"


class Lobby:
    def __init__(self, service: ContestService, store: EventStore, tokens: Tokens, settings: Settings) -> None:
        self._service = service
        self._store = store
        self._tokens = tokens
        self._settings = settings

    def check_create_key(self, given: str | None) -> None:
        wanted = self._settings.create_key
        if wanted is None:
            return
        if given is None or not hmac.compare_digest(given.encode(), wanted.encode()):
            raise Refused(errors.FORBIDDEN, "create_key: this server opens contests only with its create key")

    async def create(self, owner: str | None, request: CreateContest, command_id: str) -> tuple[str, Created]:
        """Open the contest; the owner id (``owner`` or a new one) and the ``created`` message."""
        for i, seat in enumerate(request.seats):
            if not seat.id or seat.id.startswith("~"):
                raise Refused(errors.BAD_SETUP, f"seats[{i}].id: a seat id is non-empty and never starts with '~'")
        gm = next((seat for seat in request.seats if seat.role == "gm"), None)
        if gm is None:
            raise Refused(errors.BAD_SETUP, "seats: a contest needs at least one GM seat")
        result = await self._service.create(Actor(gm.id, "gm"), request, command_id)
        owner = owner or new_owner_id()
        await self._store.save_secret(result.contest, OWNER, owner.encode())
        await self._store.index_add(owner_index(owner), result.contest)
        ttl = self._settings.token_ttl
        seats = {seat.id: self._tokens.issue(result.contest, seat.role, seat.id, ttl) for seat in request.seats}
        invitations = Invitations(
            gm=seats[gm.id],
            seats=seats,
            spectator=self._tokens.issue(result.contest, "spectator", SPECTATOR, ttl),
            owner=self._tokens.issue("", "owner", owner, self._settings.owner_ttl),
            expires=self._tokens.now() + ttl,
        )
        return owner, Created(id=command_id, contest=result.contest, version=result.version, invitations=invitations)

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
