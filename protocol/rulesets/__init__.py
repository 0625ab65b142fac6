"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended

Setup = extended.ExtendedSetup
Declaration = extended.Intent
RulesetEvent = extended.Event
RulesetCommand = extended.Command
RulesetView = extended.ExtendedView
