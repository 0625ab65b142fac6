"""What a scored sequence waits for, and from whom (docs/rules/scored.md, "What the table waits for").

Between rounds the GM frames the next round (assists, engaging followers and parting shots are anyone's
choice, not awaited); while the round's tactics are sealed the engine says who still has to seal one; a
revealed round is rolled by the player of either contestant in it, or the GM (the GM alone when the faces of
physical dice are the GM's to type); a rolled contest waits for the answers of its players' contestants
(spend a story point or let the result stand), then for the GM to resolve it; a decided sequence waits for
the GM to conclude it.
"""

from __future__ import annotations

from protocol.common import DiceMode
from server.engine.ruleset import Wait
from server.rules.questworlds.hero_points import answers
from server.rules.scored.state import ScoredState

ANSWER = "spend a story point or let the result stand"


def waiting(state: ScoredState, dice: DiceMode) -> list[Wait]:
    match state.phase:
        case "declaring":
            return []  # the engine names who still has to seal a tactic
        case "between":
            return [Wait(f"start round {state.round + 1}", gm=True)]
        case "decided":
            return [Wait("conclude the sequence", gm=True)]
        case "rolled":
            pending = state.pending
            if pending is not None and pending.waiting:
                return [answers(state.story_point_window, pending.waiting, ANSWER)]
            return [Wait("resolve the roll", gm=True)]
        case "ready":
            doing = f"roll round {state.round}"
            parties = tuple(c for c in (state.initiative, state.responder) if c is not None)
            if (dice == "physical" and not state.players_type_faces) or not parties:
                return [Wait(doing, gm=True)]  # the GM types in the faces rolled at the table
            return [Wait(doing, parties, either=True)]
