"""What a Karbon scene waits for, and from whom (docs/rules/karbon.md, "What the table waits for").

The GM sets up each contest and enters the hands drawn by name; while the risk is sealed the engine says
that the agent's player still has to seal it; the round is rolled by the agent's player, or the GM (the GM
alone when the faces of physical dice are the GM's to type); in the test each winner of the round stacks
chips or ends its test (the agent's player for the agent, the GM for the narrator), a break or a glitch
waits for the agent's player's choice and then, for some glitches, the narrator's option; after a loss at
zero Fortune the agent's player picks a Blackout or a Moment of Madness.
"""

from __future__ import annotations

from protocol.common import DiceMode
from server.engine.ruleset import Wait
from server.rules.karbon.state import KarbonState
from server.rules.karbon.view import phase


def waiting(state: KarbonState, dice: DiceMode) -> list[Wait]:
    contest = state.contest
    agent = (state.agent,)
    match phase(state):
        case "aftermath":
            return [Wait("choose a Blackout or a Moment of Madness", agent)]
        case "between":
            return [Wait("set up the next contest or end the scene" if state.contests else "set up a contest", gm=True)]
        case "drawing":
            return [Wait("enter the hands drawn", gm=True)]
        case "declaring":
            return []  # the engine names who still has to seal the risk
        case "ready":
            doing = f"roll round {contest.round if contest is not None else 1}"
            if dice == "physical" and not state.players_type_faces:
                return [Wait(doing, gm=True)]  # the GM types in the faces rolled at the table
            return [Wait(doing, agent)]
        case "test":
            if contest is None:
                return []
            if contest.waiting:
                first = contest.waiting[0]
                if first.choice is None:
                    return [Wait(f"choose what the {first.payout} does", agent)]
                return [Wait("pick the narrator's option", gm=True)]
            stacking = contest.stacking
            if not stacking:
                return [Wait("start the next round", gm=True)]
            return [
                Wait("stack chips or end the test", agent if "agent" in stacking else (), gm="narrator" in stacking)
            ]
