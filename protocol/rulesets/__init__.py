"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import contingency, extended, herowars

Setup = extended.ExtendedSetup | herowars.HerowarsSetup | contingency.ContingencySetup
Declaration = extended.Intent | herowars.Intent | contingency.Intent | contingency.FaceDownIntent
RulesetEvent = extended.Event | herowars.Event | contingency.Event
RulesetCommand = extended.Command | herowars.Command | contingency.Command
RulesetView = extended.ExtendedView | herowars.HerowarsView | contingency.ContingencyView
