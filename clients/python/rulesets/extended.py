"""Commands of the ``extended`` ruleset (QuestWorlds extended contest), typed."""

from __future__ import annotations

from clients.python.table import Table
from protocol.messages import Ack
from protocol.rulesets import extended as x


class Extended(Table):
    """A seat at an extended contest."""

    async def intent(
        self,
        contestant: str,
        action: str = "",
        bid: int | None = None,
        kind: x.ActionKind = "normal",
        ability: str | None = None,
        rating: str | None = None,
        resistance: str | None = None,
    ) -> Ack:
        """Declare, sealed, the contestant's plan for this round (no bid: the default, 3)."""
        payload = x.Intent(action=action, bid=bid, kind=kind, ability=ability, rating=rating, resistance=resistance)
        return await self.declare(contestant, payload)

    async def roll(self, faces: list[int | None] | None = None) -> Ack:
        """Roll the current exchange (physical dice: the faces, the actor's first)."""
        return await self.send(x.Roll(faces=faces))

    async def spend_hero_point(self, contestant: str) -> Ack:
        return await self.send(x.SpendHeroPoint(contestant=contestant))

    async def pass_hero_point(self, contestant: str) -> Ack:
        """Let the rolled result stand: the answer a roll with ``contestant`` in it waits for."""
        return await self.send(x.PassHeroPoint(contestant=contestant))

    async def let_it_stand(self, contestant: str) -> Ack:
        """The same answer as :meth:`pass_hero_point`, by its name on the player page."""
        return await self.pass_hero_point(contestant)

    async def confirm(self) -> Ack:
        """GM: apply the rolled exchange now."""
        return await self.send(x.Confirm())

    async def set_order(self, order: list[str]) -> Ack:
        return await self.send(x.SetOrder(order=order))

    async def propose_bid(self, contestant: str, bid: int) -> Ack:
        return await self.send(x.ProposeBid(contestant=contestant, bid=bid))

    async def accept_bid(self, contestant: str) -> Ack:
        return await self.send(x.AcceptBid(contestant=contestant))

    async def parting_shot(
        self,
        contestant: str,
        action: str = "",
        bid: int | None = None,
        ability: str | None = None,
        rating: str | None = None,
    ) -> Ack:
        return await self.send(
            x.PartingShot(contestant=contestant, action=action, bid=bid, ability=ability, rating=rating)
        )

    async def adjust(self, contestant: str, delta: int, reason: str) -> Ack:
        """GM: change a contestant's AP, with a reason."""
        return await self.send(x.Adjust(contestant=contestant, delta=delta, reason=reason))
