"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended, scored

Setup = extended.ExtendedSetup | scored.ScoredSetup
Declaration = extended.Intent | scored.Tactic
RulesetEvent = extended.Event | scored.Event
RulesetCommand = extended.Command | scored.Command
RulesetView = extended.ExtendedView | scored.ScoredView
