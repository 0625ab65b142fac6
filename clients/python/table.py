"""A seat at one contest: the commands every ruleset shares, sent as this seat, answered by acks.

Each ruleset's helper (``clients.python.rulesets.<name>``) adds its own commands to these."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clients.python.turn import whose_move
from protocol.events import CloseDeclarations, Command, Conclude, Declare, Redo, Rewind, Undo
from protocol.messages import Ack

if TYPE_CHECKING:
    from clients.python.client import AgonClient
    from clients.python.mirror import ContestMirror


class Table:
    """Commands to ``contest`` through ``client``; ``view`` is the latest checked view (plain JSON)."""

    def __init__(self, client: AgonClient, contest: str) -> None:
        self.client = client
        self.contest = contest

    @property
    def mirror(self) -> ContestMirror:
        return self.client.mirrors[self.contest]

    @property
    def view(self) -> dict[str, Any]:
        doc = self.mirror.doc
        if doc is None:
            raise LookupError(f"no view of {self.contest} yet")
        return doc

    @property
    def whose_move(self) -> str:
        """What the contest waits for, as this seat's page says it ("Your move: …", "Waiting for Ann to …")."""
        return whose_move(self.mirror.doc, self.mirror.seat)

    async def send(self, command: Command, *, id: str | None = None) -> Ack:
        """Any command; raises a ``Refusal`` subclass carrying the server's code when refused."""
        return await self.client.command(self.contest, command, id=id)

    async def declare(self, participant: str, payload: Any) -> Ack:
        """A sealed declaration for ``participant`` (seen by you and the GM until the reveal)."""
        return await self.send(Declare(participant=participant, payload=payload))

    async def close_declarations(self) -> Ack:
        """GM: reveal now; whoever has not declared gets the ruleset's default."""
        return await self.send(CloseDeclarations())

    async def undo(self) -> Ack:
        return await self.send(Undo())

    async def redo(self) -> Ack:
        return await self.send(Redo())

    async def rewind(self, to_version: int) -> Ack:
        return await self.send(Rewind(to_version=to_version))

    async def conclude(self) -> Ack:
        """GM: end the contest (server dice: the seed is revealed)."""
        return await self.send(Conclude())
