"""What a Contingency encounter waits for, and from whom (docs/rules/contingency.md, "What the table waits
for").

Each round the GM sets the scene and calls for intent; while the intents are sealed the engine says whose
characters still have to announce one; then the actions resolve in order, each rolled by its character's
player (or the GM, for a character it runs, and when the faces of physical dice are the GM's to type), a
roll whose penalty can be taken more than one way waiting for its player's choice; a change of action asked
for waits for the GM's ruling; once every action is resolved the GM takes the environmental actions and ends
the round. An action is named as everyone may read it: a face-down card by its type until it is turned over.
"""

from __future__ import annotations

from protocol.common import DiceMode
from server.engine.ruleset import Wait
from server.rules.contingency.lookup import action_called, character_called
from server.rules.contingency.order import next_action
from server.rules.contingency.state import ContingencyState

END_ROUND = "take the environmental actions and end the round"


def waiting(state: ContingencyState, dice: DiceMode) -> list[Wait]:
    match state.phase:
        case "scene":
            return [Wait("set the scene and call for intent", gm=True)]
        case "intent":
            return []  # the engine names whose characters still have to seal an intent
        case "resolving" | "environment":
            return [*_rulings(state), *_resolving(state, dice)]


def _rulings(state: ContingencyState) -> list[Wait]:
    """A change of action a player asked for waits for the GM's ruling."""
    return [
        Wait(f"rule on the change of {action_called(state, p.id)}", gm=True)
        for p in state.actions.values()
        if p.asked is not None and p.status == "planned" and p.character in state.fighters
    ]


def _resolving(state: ContingencyState, dice: DiceMode) -> list[Wait]:
    rolling = state.rolling
    if rolling is not None:
        action = (
            action_called(state, rolling.action)
            if rolling.action in state.actions
            else f"{character_called(state, rolling.character)}'s roll"
        )
        return [Wait(f"take the penalty of {action}", (rolling.character,))]
    upcoming = next_action(state)
    if upcoming is None:
        return [Wait(END_ROUND, gm=True)]
    doing = f"roll {action_called(state, upcoming.id)}"
    if dice == "physical" and not state.players_type_faces:
        return [Wait(doing, gm=True)]  # the GM types in the faces rolled at the table
    return [Wait(doing, (upcoming.character,))]
