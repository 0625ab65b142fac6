"""What a Hero Wars contest waits for, and from whom (docs/rules/herowars.md, "What the table waits for").

While the round's intents are sealed the engine says who still has to seal one; after the reveal each
exchange of the round waits for its actor (its player, or the GM for a contestant it runs; the GM when the
faces of physical dice are the GM's to type), then for the answers of the PCs in the rolled exchange, then
for the GM: a tie to settle, a decided contest to conclude.
"""

from __future__ import annotations

from protocol.common import DiceMode
from server.engine.ruleset import Wait
from server.rules.herowars.state import HerowarsState
from server.rules.questworlds.hero_points import answers


def waiting(state: HerowarsState, dice: DiceMode) -> list[Wait]:
    exchange = state.exchange
    match state.phase:
        case "declaring":
            return []  # the engine names who still has to seal an intent
        case "decided":
            return [Wait("conclude the contest", gm=True)]
        case "tied":
            return [Wait(f"settle the tie of exchange {_number(state)}", gm=True)]
        case "rolled":
            if exchange is not None and exchange.waiting:
                return [answers(state.hero_point_window, exchange.waiting)]
            return [Wait(f"confirm exchange {_number(state)}", gm=True)]
        case "ready":
            actor = state.actor
            doing = f"roll exchange {state.exchanges + 1}"
            if actor is None:
                return [Wait("start the next round", gm=True)]
            if dice == "physical" and not state.players_type_faces:
                return [Wait(doing, gm=True)]  # the GM types in the faces rolled at the table
            return [Wait(doing, (actor,))]


def _number(state: HerowarsState) -> int:
    return state.exchange.number if state.exchange is not None else state.exchanges + 1
