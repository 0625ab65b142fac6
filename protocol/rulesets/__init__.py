"""Every ruleset's wire types, one module per ruleset, and the unions of them all.

A ruleset adds its module here and its members to each union below (one line each, kept in one order).
"""

from __future__ import annotations

from protocol.rulesets import contingency, extended, herowars, karbon, scored

Setup = (
    extended.ExtendedSetup
    | herowars.HerowarsSetup
    | scored.ScoredSetup
    | karbon.KarbonSetup
    | contingency.ContingencySetup
)
Declaration = (
    extended.Intent | herowars.Intent | scored.Tactic | karbon.Risk | contingency.Intent | contingency.FaceDownIntent
)
RulesetEvent = extended.Event | herowars.Event | scored.Event | karbon.Event | contingency.Event
RulesetCommand = extended.Command | herowars.Command | scored.Command | karbon.Command | contingency.Command
RulesetView = (
    extended.ExtendedView | herowars.HerowarsView | scored.ScoredView | karbon.KarbonView | contingency.ContingencyView
)
