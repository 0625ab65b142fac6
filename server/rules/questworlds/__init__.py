"""The d20 mechanics the QuestWorlds family of rulesets shares: ratings, result levels, masteries, outcomes.

A library, not a ruleset: rulesets may import it, it imports no ruleset.
"""
