"""The `contingency` ruleset: Contingency RPG combat rounds over a graph of zones."""
