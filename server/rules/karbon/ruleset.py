"""The `karbon` ruleset wired to the engine's contract."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import Seat
from protocol.errors import Refused
from protocol.events import Revealed
from protocol.rulesets import karbon as k
from server.engine.ruleset import Ruleset, Window
from server.rules.karbon import codes
from server.rules.karbon.decide import check_declaration, decide
from server.rules.karbon.describe import describe, names
from server.rules.karbon.dice import scene_dice
from server.rules.karbon.evolve import evolve
from server.rules.karbon.state import KarbonState
from server.rules.karbon.view import MEMBERS, phase
from server.rules.karbon.waiting import waiting

MAX_FORTUNE = k.MAX_FORTUNE


def initial(setup: k.KarbonSetup, seats: Sequence[Seat]) -> KarbonState:
    if not setup.agent:
        raise Refused(codes.BAD_SETUP, "agent: the agent needs an id")
    if not 0 <= setup.fortune <= MAX_FORTUNE:
        raise Refused(codes.BAD_SETUP, f"fortune: {setup.fortune} is not between 0 and {MAX_FORTUNE}")
    players = [s for s in seats if s.role == "player" and setup.agent in s.contestants]
    if len(players) > 1:
        raise Refused(codes.BAD_SETUP, f"seats: {setup.agent!r} is played by two players")
    for seat in seats:
        for contestant in seat.contestants:
            if contestant != setup.agent:
                raise Refused(codes.BAD_SETUP, f"seats: {seat.id!r} names {contestant!r}, not the agent")
    return KarbonState(
        agent=setup.agent,
        name=setup.name,
        full_fortune=setup.fortune,
        fortune=setup.fortune,
        draw=setup.draw,
        hands_after=setup.hands_after,
        players_type_faces=setup.players_type_faces,
        dice={},
        played=bool(players),
    )


def start(state: KarbonState) -> list[k.Event]:
    pool, reserve = scene_dice()
    return [k.SceneStarted(pool=pool, reserve=reserve)]


def window(state: KarbonState) -> Window | None:
    if phase(state) != "declaring" or state.contest is None:
        return None
    return Window(
        id=f"contest-{state.contest.number}-round-{state.contest.round}", expected=[state.agent], doing="seal the risk"
    )


def is_checkpoint(event: k.Event | Revealed) -> bool:
    """Every table action is a stopping point for undo, the revealed risk included: undoing a roll keeps
    the risk the player declared before seeing the dice."""
    return True


def outcome(state: KarbonState) -> k.ContestConcluded | None:
    return state.last_outcome


KARBON: Ruleset[KarbonState] = Ruleset(
    name="karbon",
    state_type=KarbonState,
    setup_type=k.KarbonSetup,
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
    command_type=k.Command,
    declaration_type=k.Risk,
)
