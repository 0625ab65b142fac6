"""The `scored` ruleset: the QuestWorlds scored sequence with resolution points (seed 003, RULES.md §3)."""
