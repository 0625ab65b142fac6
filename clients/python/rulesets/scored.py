"""Commands of the ``scored`` ruleset (QuestWorlds scored contest), typed: one method per command."""

from __future__ import annotations

from clients.python.rulesets.typed import Declares, Sends
from clients.python.table import Table
from protocol.rulesets import scored as s


class Scored(Table):
    """A seat at a scored contest."""

    tactic = Declares(s.Tactic, "Declare, sealed, the contestant's tactic for this round (gambit, defensive, none).")
    start_round = Sends(s.StartRound)
    roll = Sends(s.Roll)
    spend_story_point = Sends(s.SpendStoryPoint)
    keep_story_points = Sends(s.KeepStoryPoints, "Spend no more story points: let the rolled result stand.")
    confirm = Sends(s.Confirm)
    assist = Sends(s.Assist)
    shift_points = Sends(s.ShiftPoints)
    engage_follower = Sends(s.EngageFollower)
    parting_shot = Sends(s.PartingShot)
    join = Sends(s.Join)
    adjust = Sends(s.Adjust)
