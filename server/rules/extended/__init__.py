"""The `extended` ruleset: the QuestWorlds extended contest (seed 000, RULES.md §1)."""
