"""The `scored` ruleset wired to the engine's contract."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import MAX_CONTESTANTS, Seat
from protocol.errors import Refused
from protocol.events import Revealed
from protocol.rulesets import scored as s
from server.engine.names import Names
from server.engine.ruleset import Ruleset, Window
from server.rules.scored import codes
from server.rules.scored.decide import check_declaration, decide
from server.rules.scored.describe import describe
from server.rules.scored.evolve import evolve
from server.rules.scored.state import Member, ScoredState
from server.rules.scored.view import MEMBERS
from server.rules.scored.waiting import waiting


def check_limits(setup: s.ScoredSetup) -> None:
    """A new sequence's table limits (docs/rules/scored.md, "Table limits"); a sequence stored under the wider
    limits of earlier releases still folds."""
    if len(setup.contestants) > MAX_CONTESTANTS:
        raise Refused(codes.BAD_SETUP, f"contestants: a sequence holds at most {MAX_CONTESTANTS} contestants")


def initial(setup: s.ScoredSetup, seats: Sequence[Seat]) -> ScoredState:
    by_id = {c.id: c for c in setup.contestants}
    if len(by_id) != len(setup.contestants) or not all(by_id):
        raise Refused(codes.BAD_SETUP, "contestants: ids must be distinct and non-empty")
    codes.parse_rating(setup.assist_resistance, "assist_resistance")
    controller: dict[str, str] = {}
    for seat in seats:
        for contestant in seat.contestants:
            if contestant not in by_id:
                raise Refused(codes.BAD_SETUP, f"seats: {seat.id!r} names no contestant {contestant!r}")
            if seat.role == "player":
                if contestant in controller:
                    raise Refused(codes.BAD_SETUP, f"seats: {contestant!r} is controlled by two players")
                controller[contestant] = seat.id
    members: dict[str, Member] = {}
    for i, c in enumerate(setup.contestants):
        field = f"contestants[{i}]"
        codes.parse_rating(c.rating, f"{field}.rating")
        if c.story_points < 0:
            raise Refused(codes.BAD_SETUP, f"{field}.story_points: never negative")
        if (c.follower_of is None) != (c.role == "main"):
            raise Refused(codes.BAD_SETUP, f"{field}.role: a follower (and only a follower) has a follower's role")
        if c.follower_of is not None:
            leader = by_id.get(c.follower_of)
            if leader is None or leader.follower_of is not None:
                raise Refused(codes.BAD_SETUP, f"{field}.follower_of: {c.follower_of!r} is no main contestant")
            if leader.side != c.side:
                raise Refused(codes.BAD_SETUP, f"{field}.side: a follower is on its leader's side")
            if controller.get(c.id) != controller.get(leader.id):
                raise Refused(codes.BAD_SETUP, f"seats: {c.id!r} is controlled by whoever controls {leader.id!r}")
        members[c.id] = Member(
            id=c.id,
            name=c.name,
            side=c.side,
            ability=c.ability,
            rating=c.rating,
            role=c.role,
            follower_of=c.follower_of,
            story_points=c.story_points,
            player=c.id in controller,
            present=not c.joins_later,
            tally=c.id,
        )
    sides = {m.side for m in members.values()}
    if len(sides) != 2:
        raise Refused(codes.BAD_SETUP, f"contestants: a scored sequence has exactly two sides, not {sorted(sides)}")
    for side in sorted(sides):
        if not any(m.main and m.present for m in members.values() if m.side == side):
            raise Refused(codes.BAD_SETUP, f"contestants: side {side!r} needs a main contestant from the start")
    return ScoredState(
        prize=setup.prize,
        assist_resistance=setup.assist_resistance,
        players_type_faces=setup.players_type_faces,
        members=members,
        story_point_window=setup.story_point_window,
        tallies=dict.fromkeys(members, 0),
        last_roll=None,
    )


def start(state: ScoredState) -> list[s.Event]:
    return []


def window(state: ScoredState) -> Window | None:
    if state.phase != "declaring" or state.initiative is None or state.responder is None:
        return None
    return Window(id=f"round-{state.round}", expected=[state.initiative, state.responder], doing="seal a tactic")


def is_checkpoint(event: s.Event | Revealed) -> bool:
    return not isinstance(event, s.ContestRolled | s.StoryPointSpent | s.StoryPointsKept)


def names(state: ScoredState) -> Names:
    """Each contestant's id (followers' and late arrivals' included) -> the name its setup gave it."""
    return {c: m.name for c, m in state.members.items()}


def outcome(state: ScoredState) -> s.SequenceDecided | None:
    return state.outcome


SCORED: Ruleset[ScoredState] = Ruleset(
    name="scored",
    state_type=ScoredState,
    setup_type=s.ScoredSetup,
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
    check_limits=check_limits,
    waiting=waiting,
    command_type=s.Command,
    declaration_type=s.Tactic,
)
