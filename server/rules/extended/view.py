"""What each viewer may see of an extended contest."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.ops import Op, Replace
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.engine.view_members import Own, ViewMembers
from server.rules.extended.roll import effective_bid
from server.rules.extended.state import ExtendedState, Fighter
from server.rules.questworlds.chart import CHART_READS, chart_member, chart_patches
from server.rules.questworlds.hero_points import exchange_seen


def _contestants(state: ExtendedState) -> Own:
    fighters = list(state.fighters.values())
    return lambda viewer: [_contestant(f, viewer) for f in fighters]


def _exchange(state: ExtendedState) -> Own:
    """The rolled exchange: all of it shared but who may still spend a hero point and whose answer it waits for."""
    exchange = state.exchange
    if exchange is None:
        return lambda viewer: None
    shared = x.ExchangeView(
        number=exchange.number,
        actor=exchange.actor,
        defender=exchange.defender,
        bid=exchange.bid,
        kind=exchange.kind,
        parting_shot=exchange.parting_shot,
        actor_face=exchange.actor_face,
        defender_face=exchange.defender_face,
        actor_level=exchange.actor_level,
        defender_level=exchange.defender_level,
        hero_points_spent=list(exchange.spent),
        hero_points_pending=[],
        answers_pending=[],
    )
    return exchange_seen(shared, exchange, state.hero_point_window)


def _shot(state: ExtendedState) -> x.ShotUnderWay | None:
    """The parting shot taken and not yet applied: public, like the exchange it becomes."""
    if state.shooter is None or state.shot_target is None:
        return None
    intent = state.shot_intent or x.Intent()
    return x.ShotUnderWay(
        shooter=state.shooter,
        target=state.shot_target,
        bid=effective_bid(state, state.shooter, intent),
        action=intent.action,
    )


ACTOR = ("phase", "exchange", "shooter", "current", "order", "acted", "fighters")
"""What ``ExtendedState.actor`` reads (``waiting`` included)."""

MEMBERS: ViewMembers[ExtendedState, x.ExtendedView] = ViewMembers(
    state_type=ExtendedState,
    view_type=x.ExtendedView,
    shared={
        "prize": lambda state: state.prize,
        "round": lambda state: state.round,
        "phase": lambda state: state.phase,
        "order": lambda state: list(state.order),
        "next_actor": lambda state: state.actor,
        "intents": lambda state: dict(state.intents),
        "proposals": lambda state: dict(state.proposals),
        "last": lambda state: state.last,
        "outcome": lambda state: state.outcome,
        "better_roll": lambda state: state.better_roll,
        "players_type_faces": lambda state: state.players_type_faces,
        "group": lambda state: state.group,
        "order_mode": lambda state: state.order_mode,
        "ordered": lambda state: state.ordered,
        "acted": lambda state: list(state.acted),
        "delayed": lambda state: list(state.delayed),
        "targets_left": lambda state: list(state.targets_left),
        "daring": lambda state: {c: state.daring_of(c) for c in state.intents},
        "changes_allowed": lambda state: list(state.changes_allowed),
        "parting_shots": lambda state: dict(state.open_shots),
        "shot_under_way": _shot,
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
        "next_actor": ACTOR,
        "intents": ("intents",),
        "proposals": ("proposals",),
        "last": ("last",),
        "outcome": ("outcome",),
        "better_roll": ("better_roll",),
        "players_type_faces": ("players_type_faces",),
        "group": ("fighters",),
        "order_mode": ("order_mode",),
        "ordered": ("ordered",),
        "acted": ("acted",),
        "delayed": ("delayed",),
        "targets_left": ("targets_left",),
        "daring": ("daring", "intents"),
        "changes_allowed": ("changes_allowed",),
        "parting_shots": ("open_shots",),
        "shot_under_way": ("shooter", "shot_target", "shot_intent", "fighters"),
        "last_roll": ("last_roll",),
        "contestants": ("fighters",),
        "exchange": ("exchange", "hero_point_window"),
        "chart": CHART_READS,
    },
)
"""The view, member by member: every sight shares all but the contestants, the chart, and who the rolled
exchange waits for and who may still spend a hero point in it; the rest of the exchange and the chart's columns
are made once per state. The next actor reads what ``ExtendedState.actor`` reads; the parting shot under way
reads the shooter's AP (a GM-run shooter's stake)."""

view = MEMBERS.view


def view_patches(
    before: ExtendedState, after: ExtendedState, event: object, viewers: Sequence[Viewer], root: str
) -> list[list[Op]] | None:
    """Each viewer's patch for the GM's AP adjustment, the event written most often between exchanges: the
    contestant's AP and the chart's newest point. None for any other event, and for an adjustment that puts a
    contestant out of the contest or back in (who acts next may change with it) or comes while a parting shot
    is under way (a GM-run shooter's stake follows its AP): those views are diffed."""
    if not isinstance(event, x.ApAdjusted) or after.shooter is not None:
        return None
    was, now = before.fighters[event.contestant], after.fighters[event.contestant]
    if (was.ap > 0) != (now.ap > 0) or msgspec.structs.replace(was, ap=now.ap, ap_known=now.ap_known) != now:
        return None
    charts = chart_patches(before, after, viewers, f"{root}/chart")
    if charts is None:
        return None
    path = f"{root}/contestants/{list(after.fighters).index(event.contestant)}/ap"
    patches: list[list[Op]] = []
    for viewer, chart in zip(viewers, charts, strict=True):
        ap = _ap(now, viewer)
        patches.append(chart if ap == _ap(was, viewer) else [Replace(path=path, value=ap), *chart])
    return patches


def _contestant(fighter: Fighter, viewer: Viewer) -> x.ContestantView:
    own = viewer.omniscient or viewer.controls(fighter.id)
    return x.ContestantView(
        id=fighter.id,
        name=fighter.name,
        ability=fighter.ability,
        rating=fighter.rating if own else None,
        ap=_ap(fighter, viewer),
        starting_ap=fighter.starting_ap if own else None,
        hero_points=fighter.hero_points if own else None,
        controlled_by_you=viewer.controls(fighter.id) or (viewer.role == "gm" and not fighter.player),
        out=fighter.ap <= 0,
        side=fighter.side,
        withdrawn=fighter.withdrawn,
        final_action_used=fighter.final_action_used,
        followers=list(fighter.followers),
    )


def _ap(fighter: Fighter, viewer: Viewer) -> int | None:
    """A contestant's AP as the viewer sees it: its controller's and the GM's, everyone's once it has changed."""
    return fighter.ap if viewer.omniscient or viewer.controls(fighter.id) or fighter.ap_known else None
