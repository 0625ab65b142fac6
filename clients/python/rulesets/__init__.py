"""Typed command helpers, one module per ruleset (``extended.Extended``), over the engine's (``Table``)."""
