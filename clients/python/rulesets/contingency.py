"""Commands of the ``contingency`` ruleset (Contingency RPG combat), typed: one method per command.

The landscape (zones, connections, barriers, characters, engagements) is the GM's, at any time."""

from __future__ import annotations

from clients.python.rulesets.typed import Declares, Sends
from clients.python.table import Table
from protocol.rulesets import contingency as c


class Contingency(Table):
    """A seat at a Contingency encounter."""

    intent = Declares(c.Intent)
    add_zone = Sends(c.AddZone, "GM: add a zone, with its connections.", gm=True)
    remove_zone = Sends(c.RemoveZone, gm=True)
    split_zone = Sends(c.SplitZone, gm=True)
    merge_zones = Sends(c.MergeZones, gm=True)
    add_trait = Sends(c.AddTrait, "GM: give a zone a trait.", gm=True)
    remove_trait = Sends(c.RemoveTrait, "GM: take a trait from a zone.", gm=True)
    set_modifier = Sends(c.SetModifier, "GM: a zone's movement modifier, and where it sweeps (forced movement).")
    connect = Sends(c.Connect, "GM: connect two zones (with a barrier or none).", gm=True)
    disconnect = Sends(c.Disconnect, "GM: remove the connection between two zones.", gm=True)
    set_barrier = Sends(c.SetBarrier, gm=True)
    add_character = Sends(c.AddCharacter, "GM: a character joins the encounter.", gm=True)
    remove_character = Sends(c.RemoveCharacter, "GM: a character leaves the encounter.", gm=True)
    place = Sends(c.Place)
    engage = Sends(c.Engage, "GM: two characters are engaged.", gm=True)
    disengage = Sends(c.Disengage, "GM: two characters are no longer engaged.", gm=True)
    set_scene = Sends(c.SetScene)
    open_intent = Sends(c.OpenIntent)
    reorder = Sends(c.Reorder)
    set_target = Sends(c.SetTarget)
    set_difficulty = Sends(c.SetDifficulty)
    roll = Sends(c.Roll)
    perform = Sends(c.Perform)
    take_penalty = Sends(c.TakePenalty)
    skip = Sends(c.Skip)
    change_action = Sends(c.ChangeAction)
    rule_on_change = Sends(c.RuleOnChange)
    move = Sends(c.Move)
    take_omen = Sends(c.TakeOmen)
    environmental = Sends(c.Environmental)
    end_round = Sends(c.EndRound)
