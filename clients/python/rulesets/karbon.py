"""Commands of the ``karbon`` ruleset (Karbon dice-pool contests), typed: one method per command."""

from __future__ import annotations

from clients.python.rulesets.typed import Declares, Sends
from clients.python.table import Table
from protocol.rulesets import karbon as k


class Karbon(Table):
    """A seat at a Karbon scene."""

    risk = Declares(k.Risk)
    start_contest = Sends(k.StartContest)
    draw_hands = Sends(k.DrawHands, gm=True)
    change_challenge = Sends(k.ChangeChallenge)
    change_peril = Sends(k.ChangePeril, "GM: a new peril (0–2) mid-contest, with a reason.")
    roll = Sends(k.Roll)
    stack = Sends(k.Stack)
    end_test = Sends(k.EndTest)
    choose_break = Sends(k.ChooseBreak)
    choose_glitch = Sends(k.ChooseGlitch)
    narrator_option = Sends(k.NarratorOption, gm=True)
    choose_aftermath = Sends(k.ChooseAftermath)
    sudden_death = Sends(k.SuddenDeath)
    adjust = Sends(k.Adjust)
    back_out = Sends(k.BackOut)
