"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended, karbon

Setup = extended.ExtendedSetup | karbon.KarbonSetup
Declaration = extended.Intent | karbon.Risk
RulesetEvent = extended.Event | karbon.Event
RulesetCommand = extended.Command | karbon.Command
RulesetView = extended.ExtendedView | karbon.KarbonView
