"""Commands of the ``herowars`` ruleset (HeroQuest/Hero Wars extended contest), typed: one method per command."""

from __future__ import annotations

from clients.python.rulesets.extended import SPEND, STAND
from clients.python.rulesets.typed import Declares, Sends
from clients.python.table import Table
from protocol.rulesets import herowars as h


class Herowars(Table):
    """A seat at a Hero Wars contest."""

    intent = Declares(h.Intent, "Declare, sealed, the contestant's action and bid for this round (no bid: 3).")
    set_order = Sends(h.SetOrder)
    roll = Sends(h.Roll)
    spend_hero_point = Sends(h.SpendHeroPoint, SPEND)
    pass_hero_point = Sends(h.PassHeroPoint, STAND)
    confirm = Sends(h.Confirm)
    settle_tie = Sends(h.SettleTie)
    adjust = Sends(h.Adjust)
