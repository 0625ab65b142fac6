"""The `extended` ruleset wired to the engine's contract."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from protocol.common import MAX_CONTESTANTS, Seat
from protocol.errors import Refused
from protocol.events import Revealed
from protocol.rulesets import extended as x
from server.engine.names import Names
from server.engine.ruleset import Ruleset, Window
from server.rules.extended import codes
from server.rules.extended.decide import check_declaration, decide
from server.rules.extended.describe import describe
from server.rules.extended.evolve import evolve
from server.rules.extended.redact import redact
from server.rules.extended.state import ExtendedState, Fighter
from server.rules.extended.view import MEMBERS, view_patches
from server.rules.extended.waiting import waiting
from server.rules.questworlds.chart import started
from server.rules.questworlds.setup import modified_rating, player_controlled


def check_limits(setup: x.ExtendedSetup) -> None:
    """A new contest's table limits (docs/rules/extended.md, "Table limits"); a contest stored under the wider
    limits of earlier releases still folds."""
    if len(setup.contestants) > MAX_CONTESTANTS:
        raise Refused(codes.BAD_SETUP, f"contestants: a contest holds at most {MAX_CONTESTANTS} contestants")
    for i, c in enumerate(setup.contestants):
        if len(c.followers) > x.MAX_FOLLOWERS:
            raise Refused(codes.BAD_SETUP, f"contestants[{i}].followers: at most {x.MAX_FOLLOWERS} followers")


def initial(setup: x.ExtendedSetup, seats: Sequence[Seat]) -> ExtendedState:
    if len(setup.contestants) < 2:
        raise Refused(codes.BAD_SETUP, "contestants: a contest needs at least two contestants")
    controlled = player_controlled([c.id for c in setup.contestants], seats)
    fighters: dict[str, Fighter] = {}
    for i, c in enumerate(setup.contestants):
        rolled = modified_rating(c.rating, c.modifier + c.augment, f"contestants[{i}]")
        starting = rolled.value + c.followers_ap
        if starting < 1:
            raise Refused(codes.BAD_SETUP, f"contestants[{i}]: starting AP {starting} is below 1")
        if c.hero_points < 0 or c.followers_ap < 0:
            raise Refused(codes.BAD_SETUP, f"contestants[{i}]: hero points and followers' AP are never negative")
        followers = [
            modified_rating(f.rating, f.modifier, f"contestants[{i}].followers[{j}]").value
            for j, f in enumerate(c.followers)
        ]
        if any(ap < 0 for ap in followers):
            raise Refused(codes.BAD_SETUP, f"contestants[{i}].followers: a follower never takes AP away")
        starting += sum(followers)
        fighters[c.id] = Fighter(
            id=c.id,
            name=c.name,
            ability=c.ability,
            rating=str(rolled),
            starting_ap=starting,
            ap=starting,
            ap_known=False,
            hero_points=c.hero_points,
            edge=c.edge,
            player=c.id in controlled,
            side=c.side or c.id,
            followers=[f.name for f in c.followers],
        )
    if len({f.side for f in fighters.values()}) < 2:
        raise Refused(codes.BAD_SETUP, "contestants: a contest needs at least two sides")
    return ExtendedState(
        prize=setup.prize,
        better_roll=setup.better_roll,
        players_type_faces=setup.players_type_faces,
        fighters=fighters,
        last_roll=None,
        hero_point_window=setup.hero_point_window,
        chart=started(fighters),
    )


def start(state: ExtendedState) -> list[x.Event]:
    return [x.RoundStarted(round=1, order=list(state.fighters))]


def window(state: ExtendedState) -> Window | None:
    if state.phase != "declaring":
        return None
    return Window(id=f"round-{state.round}", expected=[c for c in state.order if state.fighters[c].in_contest])


def is_checkpoint(event: x.Event | Revealed) -> bool:
    return isinstance(
        event,
        x.RoundStarted
        | Revealed
        | x.ExchangeApplied
        | x.ApAdjusted
        | x.ContestDecided
        | x.PartingShotTaken
        | x.FinalActionTaken
        | x.DisengageRolled
        | x.LoanResolved
        | x.GiftResolved
        | x.TurnPassed,
    )


def names(state: ExtendedState) -> Names:
    """Each contestant's id -> the name its setup gave it (a side of one contestant has that contestant's id, so
    its name too)."""
    return {c: f.name for c, f in state.fighters.items()}


def outcome(state: ExtendedState) -> x.ContestDecided | None:
    return state.outcome


def concluded(state: ExtendedState) -> ExtendedState:
    return msgspec.structs.replace(state, phase="over", exchange=None)


EXTENDED: Ruleset[ExtendedState] = Ruleset(
    name="extended",
    state_type=ExtendedState,
    setup_type=x.ExtendedSetup,
    initial=initial,
    start=start,
    decide=decide,
    evolve=evolve,
    view=MEMBERS.view,
    views=MEMBERS.views,
    view_patches=view_patches,
    touches=MEMBERS.touches,
    follow=MEMBERS.follow,
    outcome=outcome,
    window=window,
    check_declaration=check_declaration,
    is_checkpoint=is_checkpoint,
    describe=describe,
    names=names,
    check_limits=check_limits,
    redact=redact,
    concluded=concluded,
    waiting=waiting,
    command_type=x.Command,
    declaration_type=x.Intent,
)
