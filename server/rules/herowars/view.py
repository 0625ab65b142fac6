"""What each viewer may see of a Hero Wars contest."""

from __future__ import annotations

from protocol.rulesets import herowars as h
from server.engine.ruleset import Viewer
from server.rules.herowars.state import Fighter, HerowarsState
from server.rules.questworlds.chart import chart_for
from server.rules.questworlds.hero_points import awaiting_for, pending_for


def view(state: HerowarsState, viewer: Viewer) -> h.HerowarsView:
    exchange = state.exchange
    return h.HerowarsView(
        prize=state.prize,
        round=state.round,
        phase=state.phase,
        order=list(state.order),
        next_actor=state.actor,
        contestants=[_contestant(f, viewer) for f in state.fighters.values()],
        intents=dict(state.intents),
        exchange=None
        if exchange is None
        else h.ExchangeView(
            number=exchange.number,
            actor=exchange.actor,
            defender=exchange.defender,
            bid=exchange.bid,
            actor_face=exchange.actor_face,
            defender_face=exchange.defender_face,
            actor_level=exchange.actor_level,
            defender_level=exchange.defender_level,
            hero_points_spent=list(exchange.spent),
            hero_points_pending=pending_for(exchange.eligible, viewer),
            answers_pending=awaiting_for(state.hero_point_window, exchange.waiting, viewer),
        ),
        last=state.last,
        outcome=state.outcome,
        chart=chart_for(state, viewer),
        cap_3x=state.cap_3x,
        last_roll=state.last_roll,
    )


def _contestant(fighter: Fighter, viewer: Viewer) -> h.ContestantView:
    own = viewer.omniscient or viewer.controls(fighter.id)
    return h.ContestantView(
        id=fighter.id,
        name=fighter.name,
        ability=fighter.ability,
        rating=fighter.rating if own else None,
        ap=fighter.ap if own or fighter.ap_known else None,
        starting_ap=fighter.starting_ap if own else None,
        hero_points=fighter.hero_points if own else None,
        edge=fighter.edge if own else None,
        controlled_by_you=viewer.controls(fighter.id),
        out=fighter.ap <= 0,
    )
