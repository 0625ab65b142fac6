"""What a viewer sees of a Karbon scene: the table as everyone at it sees it (only the risk is sealed,
and the engine keeps it sealed until it is revealed)."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import karbon as k
from server.engine.ruleset import Viewer
from server.rules.karbon.state import KarbonState


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


def views(state: KarbonState, viewers: Sequence[Viewer]) -> list[k.KarbonView]:
    """Everyone at the table sees the same: one view, shared by every viewer."""
    return [view(state, viewers[0])] * len(viewers) if viewers else []


def view(state: KarbonState, viewer: Viewer) -> k.KarbonView:
    contest = state.contest

    def dice(place: k.Place) -> list[k.DieView]:
        return [k.DieView(id=d.id, sides=d.sides) for d in state.at(place)]

    sides = {
        side: k.SideView(
            hand=dice(side),
            chips=contest.chips[side] if contest is not None else 0,
            stack=contest.stacks[side] if contest is not None else 0,
        )
        for side in ("agent", "narrator")
    }
    return k.KarbonView(
        agent=state.agent,
        name=state.name,
        played=state.played,
        players_type_faces=state.players_type_faces,
        fortune=state.fortune,
        full_fortune=state.full_fortune,
        injuries=list(state.injuries),
        conditions=list(state.conditions),
        aftermaths=list(state.aftermaths),
        draw=state.draw,
        phase=phase(state),
        pool=dice("pool"),
        reserve=dice("reserve"),
        spent=dice("spent"),
        sides=sides,
        contest=None
        if contest is None
        else k.ContestInfo(
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
        ),
        all_in=contest.all_in if contest is not None else None,
        last_roll=state.last_roll,
        stacking=list(contest.stacking) if contest is not None else [],
        pending=[]
        if contest is None
        else [
            k.PendingView(payout=w.payout, chooser="agent" if w.choice is None else "narrator", choice=w.choice)
            for w in contest.waiting
        ],
        last_outcome=state.last_outcome,
        contests=state.contests,
    )
