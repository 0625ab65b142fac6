"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended, herowars, karbon

Setup = extended.ExtendedSetup | herowars.HerowarsSetup | karbon.KarbonSetup
Declaration = extended.Intent | herowars.Intent | karbon.Risk
RulesetEvent = extended.Event | herowars.Event | karbon.Event
RulesetCommand = extended.Command | herowars.Command | karbon.Command
RulesetView = extended.ExtendedView | herowars.HerowarsView | karbon.KarbonView
