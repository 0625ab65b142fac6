"""Backing out of a contest (seed: "only Challenge and Peril can change for a contest without backing out of
it"): the GM or the agent's player ends the contest being played with no outcome, so that another one can be
set up. Its chips, stacks and marks go with it; its hands go where a concluded contest's go."""

from __future__ import annotations

from protocol.errors import Refused
from protocol.rulesets import karbon as k
from server.rules.karbon import codes
from server.rules.karbon.state import KarbonState


def back_out(state: KarbonState, command: k.BackOut, by: k.Side) -> list[k.Event]:
    contest = state.contest
    if contest is None:
        raise Refused(codes.OUT_OF_PHASE, "no contest is being played: there is nothing to back out of")
    if contest.waiting:
        first = contest.waiting[0]
        wanted = "the narrator's option" if first.choice is not None else f"the {first.payout}'s choice"
        raise Refused(codes.CHOICE_PENDING, f"the {first.payout} is paid out: make {wanted} first")
    hands = state.ids("agent") + state.ids("narrator")
    out: list[k.Event] = [k.BackedOut(contest=contest.number, by=by, reason=command.reason.strip())]
    if hands:
        out.append(k.DiceMoved(dice=hands, to=state.hands_after, why="backed out of the contest"))
    return out
