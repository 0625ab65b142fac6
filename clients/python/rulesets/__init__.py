"""Typed commands, one module per ruleset (``extended.Extended``, ``scored.Scored``, ...), over the engine's
(``Table``); ``typed`` builds their methods from the command types."""
