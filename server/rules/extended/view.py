"""What each viewer may see of an extended contest."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.ops import Op, Replace
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.roll import effective_bid
from server.rules.extended.state import ExtendedState, Fighter
from server.rules.questworlds.chart import chart_for, chart_patches
from server.rules.questworlds.hero_points import awaiting_for, pending_for


def view(state: ExtendedState, viewer: Viewer) -> x.ExtendedView:
    return views(state, [viewer])[0]


def views(state: ExtendedState, viewers: Sequence[Viewer]) -> list[x.ExtendedView]:
    """Each viewer's view; all but the contestants, the chart and whose hero point is awaited shared."""
    if not viewers:
        return []
    exchange = state.exchange
    charts = [chart_for(state, viewer) for viewer in viewers]
    shared_exchange = (
        None
        if exchange is None
        else x.ExchangeView(
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
    )
    shared = x.ExtendedView(
        prize=state.prize,
        round=state.round,
        phase=state.phase,
        order=list(state.order),
        next_actor=state.actor,
        contestants=[],
        intents=dict(state.intents),
        proposals=dict(state.proposals),
        exchange=None,
        last=state.last,
        outcome=state.outcome,
        chart=charts[0],
        better_roll=state.better_roll,
        group=state.group,
        order_mode=state.order_mode,
        ordered=state.ordered,
        acted=list(state.acted),
        delayed=list(state.delayed),
        targets_left=list(state.targets_left),
        daring={c: state.daring_of(c) for c in state.intents},
        changes_allowed=list(state.changes_allowed),
        parting_shots=dict(state.open_shots),
        shot_under_way=_shot(state),
        players_type_faces=state.players_type_faces,
        last_roll=state.last_roll,
    )
    return [
        msgspec.structs.replace(
            shared,
            contestants=[_contestant(f, viewer) for f in state.fighters.values()],
            exchange=None
            if exchange is None or shared_exchange is None
            else msgspec.structs.replace(
                shared_exchange,
                hero_points_pending=pending_for(exchange.eligible, viewer),
                answers_pending=awaiting_for(state.hero_point_window, exchange.waiting, viewer),
            ),
            chart=chart,
        )
        for viewer, chart in zip(viewers, charts, strict=True)
    ]


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
