"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import extended, herowars

Setup = extended.ExtendedSetup | herowars.HerowarsSetup
Declaration = extended.Intent | herowars.Intent
RulesetEvent = extended.Event | herowars.Event
RulesetCommand = extended.Command | herowars.Command
RulesetView = extended.ExtendedView | herowars.HerowarsView
