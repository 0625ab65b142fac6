"""What a viewer sees of a Karbon scene: the table as everyone at it sees it (only the risk is sealed,
and the engine keeps it sealed until it is revealed)."""

from __future__ import annotations

from protocol.rulesets import karbon as k
from server.engine.view_members import ViewMembers
from server.rules.karbon.state import SIDES, KarbonState


def phase(state: KarbonState) -> k.Phase:
    contest = state.contest
    if state.aftermath_due:
        return "aftermath"
    if contest is None:
        return "between"
    if not contest.drawn:
        return "drawing"
    if contest.rolled:
        return "test"
    return "declaring" if contest.all_in is None else "ready"


def _dice(state: KarbonState, place: k.Place) -> list[k.DieView]:
    return [k.DieView(id=d.id, sides=d.sides) for d in state.at(place)]


def _sides(state: KarbonState) -> dict[str, k.SideView]:
    contest = state.contest
    return {
        side: k.SideView(
            hand=_dice(state, side),
            chips=contest.chips[side] if contest is not None else 0,
            stack=contest.stacks[side] if contest is not None else 0,
        )
        for side in SIDES
    }


def _contest(state: KarbonState) -> k.ContestInfo | None:
    contest = state.contest
    if contest is None:
        return None
    return k.ContestInfo(
        number=contest.number,
        goal=contest.goal,
        ability=contest.ability,
        level=contest.level,
        challenge=contest.challenge,
        consequence=contest.consequence,
        peril=contest.peril,
        sudden_death=contest.sudden_death,
        round=contest.round,
        track=list(contest.track),
    )


def _pending(state: KarbonState) -> list[k.PendingView]:
    contest = state.contest
    if contest is None:
        return []
    return [
        k.PendingView(payout=w.payout, chooser="agent" if w.choice is None else "narrator", choice=w.choice)
        for w in contest.waiting
    ]


MEMBERS: ViewMembers[KarbonState, k.KarbonView] = ViewMembers(
    state_type=KarbonState,
    view_type=k.KarbonView,
    shared={
        "agent": lambda state: state.agent,
        "name": lambda state: state.name,
        "played": lambda state: state.played,
        "players_type_faces": lambda state: state.players_type_faces,
        "fortune": lambda state: state.fortune,
        "full_fortune": lambda state: state.full_fortune,
        "injuries": lambda state: list(state.injuries),
        "conditions": lambda state: list(state.conditions),
        "aftermaths": lambda state: list(state.aftermaths),
        "draw": lambda state: state.draw,
        "phase": phase,
        "pool": lambda state: _dice(state, "pool"),
        "reserve": lambda state: _dice(state, "reserve"),
        "spent": lambda state: _dice(state, "spent"),
        "sides": _sides,
        "contest": _contest,
        "all_in": lambda state: state.contest.all_in if state.contest is not None else None,
        "last_roll": lambda state: state.last_roll,
        "stacking": lambda state: list(state.contest.stacking) if state.contest is not None else [],
        "pending": _pending,
        "last_outcome": lambda state: state.last_outcome,
        "contests": lambda state: state.contests,
    },
    own={},
    reads={
        "agent": ("agent",),
        "name": ("name",),
        "played": ("played",),
        "players_type_faces": ("players_type_faces",),
        "fortune": ("fortune",),
        "full_fortune": ("full_fortune",),
        "injuries": ("injuries",),
        "conditions": ("conditions",),
        "aftermaths": ("aftermaths",),
        "draw": ("draw",),
        "phase": ("aftermath_due", "contest"),
        "pool": ("dice",),
        "reserve": ("dice",),
        "spent": ("dice",),
        "sides": ("dice", "contest"),
        "contest": ("contest",),
        "all_in": ("contest",),
        "last_roll": ("last_roll",),
        "stacking": ("contest",),
        "pending": ("contest",),
        "last_outcome": ("last_outcome",),
        "contests": ("contests",),
    },
)
"""The view, member by member: everyone at the table sees the same, so every member is shared and worked out
once per state, whatever the number of viewers. The dice in each place (``pool``, ``reserve``, ``spent`` and
the sides' hands) read only where the dice are; the phase, the contest, the risk, the stacking and the payouts
waiting read the running contest, which evolve replaces whenever any of it changes."""
