"""The actions a table plays and their types. A contest may bring its own list in its setup; without one,
it plays the actions the rules text names, typed as the text describes them."""

from __future__ import annotations

from protocol.rulesets.contingency import ActionDef, ActionType

TYPE_ORDER: dict[ActionType, int] = {"Influence": 0, "Movement": 1, "Interaction": 2, "Combat": 3, "Triggered": 4}

REPOSITION = "Reposition"

DEFAULT_ACTIONS: list[ActionDef] = [
    ActionDef("Intimidate", "Influence"),
    ActionDef("Parley", "Influence"),
    ActionDef("Taunt", "Influence"),
    ActionDef(REPOSITION, "Movement"),
    ActionDef("Leap", "Movement"),
    ActionDef("Climb", "Movement"),
    ActionDef("Hide", "Movement"),
    ActionDef("Take Cover", "Movement"),
    ActionDef("Lockpick", "Interaction"),
    ActionDef("Force Open", "Interaction"),
    ActionDef("Use Item", "Interaction"),
    ActionDef("Strike", "Combat"),
    ActionDef("Shoot", "Combat"),
    ActionDef("Defend", "Triggered"),
    ActionDef("Focus", "Triggered"),
]
