"""The `karbon` ruleset: Karbon dice-pool contests, one log per scene (seed 004, RULES.md §4)."""
