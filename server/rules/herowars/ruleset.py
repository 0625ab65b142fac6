"""The `herowars` ruleset wired to the engine's contract."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import Seat
from protocol.errors import Refused
from protocol.events import Revealed
from protocol.rulesets import herowars as h
from server.engine.names import Names
from server.engine.ruleset import Ruleset, Window
from server.rules.herowars import codes
from server.rules.herowars.decide import check_declaration, decide
from server.rules.herowars.describe import describe
from server.rules.herowars.evolve import evolve
from server.rules.herowars.state import Fighter, HerowarsState
from server.rules.herowars.view import MEMBERS
from server.rules.herowars.waiting import waiting
from server.rules.questworlds.chart import started
from server.rules.questworlds.setup import modified_rating, player_controlled, starting_ap


def initial(setup: h.HerowarsSetup, seats: Sequence[Seat]) -> HerowarsState:
    if len(setup.contestants) != 2:
        raise Refused(codes.BAD_SETUP, "contestants: this contest is between exactly two contestants")
    controlled = player_controlled([c.id for c in setup.contestants], seats)
    fighters: dict[str, Fighter] = {}
    for i, c in enumerate(setup.contestants):
        if c.hero_points < 0:
            raise Refused(codes.BAD_SETUP, f"contestants[{i}].hero_points: never negative")
        rating = modified_rating(c.rating, c.modifier + c.augment, f"contestants[{i}]")
        ap = starting_ap(rating, c.followers_ap, f"contestants[{i}]")
        fighters[c.id] = Fighter(
            id=c.id,
            name=c.name,
            ability=c.ability,
            rating=str(rating),
            starting_ap=ap,
            ap=ap,
            ap_known=False,
            hero_points=c.hero_points,
            edge=c.edge,
            player=c.id in controlled,
        )
    return HerowarsState(
        prize=setup.prize,
        cap_3x=setup.cap_3x,
        players_type_faces=setup.players_type_faces,
        fighters=fighters,
        last_roll=None,
        hero_point_window=setup.hero_point_window,
        chart=started(fighters),
    )


def start(state: HerowarsState) -> list[h.Event]:
    return [h.RoundStarted(round=1, order=list(state.fighters))]


def window(state: HerowarsState) -> Window | None:
    if state.phase != "declaring":
        return None
    return Window(id=f"round-{state.round}", expected=list(state.order))


def is_checkpoint(event: h.Event | Revealed) -> bool:
    return isinstance(
        event, h.RoundStarted | Revealed | h.ExchangeApplied | h.ExchangeTied | h.ApAdjusted | h.ContestDecided
    )


def names(state: HerowarsState) -> Names:
    """Each contestant's id -> the name its setup gave it."""
    return {c: f.name for c, f in state.fighters.items()}


def outcome(state: HerowarsState) -> h.ContestDecided | None:
    return state.outcome


HEROWARS: Ruleset[HerowarsState] = Ruleset(
    name="herowars",
    state_type=HerowarsState,
    setup_type=h.HerowarsSetup,
    initial=initial,
    start=start,
    decide=decide,
    evolve=evolve,
    view=MEMBERS.view,
    views=MEMBERS.views,
    touches=MEMBERS.touches,
    follow=MEMBERS.follow,
    outcome=outcome,
    window=window,
    check_declaration=check_declaration,
    is_checkpoint=is_checkpoint,
    describe=describe,
    names=names,
    waiting=waiting,
    command_type=h.Command,
    declaration_type=h.Intent,
)
