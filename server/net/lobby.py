"""Opening contests and listing them for their owner.

Whoever can reach the server may open a contest, unless ``AGON_CREATE_KEY`` is set (then the request must
carry it). The creator receives the invitations — a token per seat, one for spectators — and an owner
token, which lists the contests it opened (``server.owners`` keeps who opened which).
"""

from __future__ import annotations

import hmac

from protocol import errors
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import CreateContest
from protocol.messages import ContestSummary, Created, Invitations
from server.net.auth import SPECTATOR, Tokens, new_owner_id
from server.net.settings import Settings
from server.owners import Owners
from server.service import ContestService


class Lobby:
    def __init__(self, service: ContestService, owners: Owners, tokens: Tokens, settings: Settings) -> None:
        self._service = service
        self._owners = owners
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
        await self._owners.record(result.contest, owner)
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
        return await self._owners.contests(owner)
