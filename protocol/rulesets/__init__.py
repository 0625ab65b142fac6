"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended, herowars, scored

Setup = extended.ExtendedSetup | herowars.HerowarsSetup | scored.ScoredSetup
Declaration = extended.Intent | herowars.Intent | scored.Tactic
RulesetEvent = extended.Event | herowars.Event | scored.Event
RulesetCommand = extended.Command | herowars.Command | scored.Command
RulesetView = extended.ExtendedView | herowars.HerowarsView | scored.ScoredView
