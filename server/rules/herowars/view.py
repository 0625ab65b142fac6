"""What each viewer may see of a Hero Wars contest."""

from __future__ import annotations

from protocol.rulesets import herowars as h
from server.engine.ruleset import Viewer
from server.engine.view_members import Own, ViewMembers
from server.rules.herowars.state import Fighter, HerowarsState
from server.rules.questworlds.chart import CHART_READS, chart_member
from server.rules.questworlds.hero_points import exchange_seen


def _contestants(state: HerowarsState) -> Own:
    fighters = list(state.fighters.values())
    return lambda viewer: [_contestant(f, viewer) for f in fighters]


def _exchange(state: HerowarsState) -> Own:
    """The rolled exchange: all of it shared but who may still spend a hero point and whose answer it waits for."""
    exchange = state.exchange
    if exchange is None:
        return lambda viewer: None
    shared = h.ExchangeView(
        number=exchange.number,
        actor=exchange.actor,
        defender=exchange.defender,
        bid=exchange.bid,
        actor_face=exchange.actor_face,
        defender_face=exchange.defender_face,
        actor_level=exchange.actor_level,
        defender_level=exchange.defender_level,
        hero_points_spent=list(exchange.spent),
        hero_points_pending=[],
        answers_pending=[],
    )
    return exchange_seen(shared, exchange, state.hero_point_window)


MEMBERS: ViewMembers[HerowarsState, h.HerowarsView] = ViewMembers(
    state_type=HerowarsState,
    view_type=h.HerowarsView,
    shared={
        "prize": lambda state: state.prize,
        "round": lambda state: state.round,
        "phase": lambda state: state.phase,
        "order": lambda state: list(state.order),
        "next_actor": lambda state: state.actor,
        "intents": lambda state: dict(state.intents),
        "last": lambda state: state.last,
        "outcome": lambda state: state.outcome,
        "cap_3x": lambda state: state.cap_3x,
        "last_roll": lambda state: state.last_roll,
    },
    own={
        "contestants": _contestants,
        "exchange": _exchange,
        "chart": chart_member,
    },
    reads={
        "prize": ("prize",),
        "round": ("round",),
        "phase": ("phase",),
        "order": ("order",),
        "next_actor": ("phase", "turn", "order"),
        "intents": ("intents",),
        "last": ("last",),
        "outcome": ("outcome",),
        "cap_3x": ("cap_3x",),
        "last_roll": ("last_roll",),
        "contestants": ("fighters",),
        "exchange": ("exchange", "hero_point_window"),
        "chart": CHART_READS,
    },
)
"""The view, member by member: every sight shares all but the contestants, the chart, and who the rolled
exchange waits for and who may still spend a hero point in it; the rest of the exchange and the chart's columns
are made once per state. The next actor reads what ``HerowarsState.actor`` reads: the phase, the order and the
turn."""

view = MEMBERS.view


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
