"""Commands of the ``extended`` ruleset (QuestWorlds extended contest), typed: one method per command."""

from __future__ import annotations

from clients.python.rulesets.typed import Declares, Sends
from clients.python.table import Table
from protocol.messages import Ack
from protocol.rulesets import extended as x

SPEND = "Spend a hero point: the contestant's result one step better for this exchange."
STAND = "Let the rolled result stand: the answer a roll with ``contestant`` in it waits for."


class Extended(Table):
    """A seat at an extended contest."""

    intent = Declares(x.Intent, "Declare, sealed, the contestant's plan for this round (no bid: the default, 3).")
    set_order = Sends(x.SetOrder)
    order_by = Sends(x.OrderBy)
    rank_daring = Sends(x.RankDaring)
    propose_bid = Sends(x.ProposeBid)
    accept_bid = Sends(x.AcceptBid)
    delay = Sends(x.Delay)
    jump_in = Sends(x.JumpIn)
    allow_change = Sends(x.AllowChange)
    change_intent = Sends(x.ChangeIntent)
    pass_turn = Sends(x.PassTurn)
    roll = Sends(x.Roll)
    spend_hero_point = Sends(x.SpendHeroPoint, SPEND)
    pass_hero_point = Sends(x.PassHeroPoint, STAND)
    confirm = Sends(x.Confirm)
    parting_shot = Sends(x.PartingShot)
    decline_parting_shot = Sends(x.DeclinePartingShot)
    final_action = Sends(x.FinalAction)
    disengage = Sends(x.Disengage)
    rejoin = Sends(x.Rejoin)
    lend = Sends(x.Lend)
    gift = Sends(x.Gift)
    grant_hero_points = Sends(x.GrantHeroPoints)
    adjust = Sends(x.Adjust)

    async def let_it_stand(self, contestant: str) -> Ack:
        """The same answer as :meth:`pass_hero_point`, by its name on the player page."""
        return await self.pass_hero_point(contestant)
