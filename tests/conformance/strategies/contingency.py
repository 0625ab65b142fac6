"""Conformance strategy of ``contingency``: a small map, two players and GM-run characters, played through
rounds with landscape changes, steps, repositions, triggered and instant actions, in either intent mode."""

from __future__ import annotations

import typing
from collections.abc import Iterable

import msgspec
from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare
from protocol.rulesets import contingency as c
from server.engine.ruleset import Viewer
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from server.rules.contingency.order import queue
from server.rules.contingency.state import ContingencyState
from tests.conformance.kit import Table, sealed_text

ZONES = ["gate", "yard", "keep", "moat", "tower"]
CHARACTERS = ["ann_pc", "bob_pc", "guard"]
NAMES = ["Strike", "Shoot", "Taunt", "Reposition", "Leap", "Defend", "Lockpick", "Fly", "Hide"]
OWN = "Hide"  # an action card only Rook holds: a change asked for it is hers and the GM's, in either mode
SHARED = [a.name for a in DEFAULT_ACTIONS if a.name != OWN]


@st.composite
def _setup(draw: st.DrawFn) -> CreateContest:
    barrier = draw(st.none() | st.builds(c.Barrier, difficulty=st.integers(3, 6), action=st.just("Leap")))
    zones = [
        c.Zone(id="gate", name="Gate"),
        c.Zone(id="yard", name="Yard", modifier=draw(st.integers(0, 2)), traits=["Exposed"]),
        c.Zone(id="keep", name="Keep"),
        c.Zone(id="moat", name="Moat", traits=["Forced Movement"], forced_to="gate"),
        c.Zone(id="tower", name="Tower"),
    ]
    connections = [
        c.Connection(a="gate", b="yard"),
        c.Connection(a="yard", b="keep", barrier=barrier),
        c.Connection(a="gate", b="moat"),
    ]
    return CreateContest(
        ruleset="contingency",
        setup=c.ContingencySetup(
            zones=zones,
            connections=connections,
            characters=[
                c.Character(
                    id="ann_pc",
                    name="Rook",
                    zone="gate",
                    skills=[c.SkillDice(attribute="Agility", skill="Mobility", dice=[6, 8, 12])],
                    actions=[*SHARED, OWN],
                ),
                c.Character(id="bob_pc", name="Wren", zone="yard", actions=SHARED),
                c.Character(id="guard", name="Guard", zone="yard", actions=SHARED),
            ],
            things=[c.Thing(id="chest", name="Chest", zone="keep")],
            engagements=draw(st.sampled_from([[], [["bob_pc", "guard"]]])),
            intent=draw(st.sampled_from(["public", "face_down"])),
            omens=draw(st.sampled_from(["per_roll", "per_die"])),
            players_type_faces=draw(st.booleans()),
        ),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["ann_pc"]), Seat("bob", "player", ["bob_pc"])],
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup()


def _faces(table: Table) -> st.SearchStrategy[list[int] | None]:
    typed = st.lists(st.integers(0, 11), min_size=3, max_size=3) | st.lists(st.integers(1, 10), max_size=4)
    return st.none() | typed if table.dice == "server" else typed | st.none()


def _zone(state: ContingencyState) -> st.SearchStrategy[str]:
    return st.sampled_from([*state.zones, *ZONES, "nowhere"])


def _who(state: ContingencyState) -> st.SearchStrategy[str]:
    return st.sampled_from([*state.fighters, *CHARACTERS, "nobody"])


def _action_id(state: ContingencyState) -> st.SearchStrategy[str]:
    return st.sampled_from([*state.actions, "ann_pc.1", "nope"])


def _landscape(state: ContingencyState) -> list[st.SearchStrategy[Command]]:
    zone, who = _zone(state), _who(state)
    new_zone = st.builds(c.Zone, id=st.sampled_from(["new1", "new2", "yard"]), name=st.just("New"))
    here = list(state.zones)
    placements = st.dictionaries(who, zone, max_size=3)
    return [
        st.builds(c.AddZone, zone=new_zone, connections=st.lists(st.builds(c.Connection, a=zone, b=zone), max_size=2)),
        st.builds(c.RemoveZone, zone=zone, placements=placements),
        st.builds(
            c.SplitZone,
            zone=zone,
            into=st.just([c.Zone(id="part1", name="Part 1"), c.Zone(id="part2", name="Part 2")]),
            placements=st.dictionaries(who, st.sampled_from(["part1", "part2", "gate"]), max_size=3),
        ),
        st.builds(
            c.MergeZones,
            zones=st.lists(st.sampled_from(here), min_size=1, max_size=3),
            into=st.builds(c.Zone, id=st.sampled_from(["merged", "gate"]), name=st.just("Merged")),
        ),
        st.builds(c.AddTrait, zone=zone, trait=st.sampled_from(["Exposed", "Intimidating", ""])),
        st.builds(c.RemoveTrait, zone=zone, trait=st.sampled_from(["Exposed", "Intimidating"])),
        st.builds(c.SetModifier, zone=zone, modifier=st.integers(-1, 3), forced_to=st.none() | zone),
        st.builds(c.Connect, connection=st.builds(c.Connection, a=zone, b=zone)),
        st.builds(c.Disconnect, a=zone, b=zone),
        st.builds(
            c.SetBarrier,
            a=zone,
            b=zone,
            barrier=st.none() | st.builds(c.Barrier, difficulty=st.integers(0, 7), action=st.just("Leap")),
        ),
        st.builds(c.Place, character=who, zone=zone),
        st.builds(c.Engage, a=who, b=who),
        st.builds(c.Disengage, a=who, b=who),
        st.builds(
            c.AddCharacter, character=st.builds(c.Character, id=st.just("troll"), name=st.just("Troll"), zone=zone)
        ),
        st.builds(c.RemoveCharacter, character=who),
    ]


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: ContingencyState = table.state
    who, zone, action = _who(state), _zone(state), _action_id(state)
    step = st.none() | st.builds(
        c.Step, zone=st.none() | zone, engage=st.none() | who, reach=st.none() | st.just("chest")
    )
    options: list[st.SearchStrategy[Command]] = [
        *_landscape(state),
        st.builds(c.SetScene, text=st.just("Rain on the walls"), foreshadow=st.just("hooves")),
        st.just(c.OpenIntent()),
        st.builds(c.SetTarget, action=action, target=st.sampled_from([*state.ids(), "x"])),
        st.builds(c.SetDifficulty, action=action, difficulty=st.integers(0, 7)),
        st.builds(
            c.Roll,
            action=st.none() | action,
            step=step,
            faces=_faces(table),
            attribute=st.none() | st.sampled_from(["Agility", "Wits"]),
            skill=st.none() | st.just("Mobility"),
        ),
        st.builds(
            c.Perform,
            character=who,
            action=st.sampled_from(NAMES),
            kind=st.sampled_from(["triggered", "instant"]),
            faces=_faces(table),
        ),
        st.builds(c.Skip, action=action),
        st.builds(c.ChangeAction, action=action, to=st.sampled_from(NAMES)),
        st.builds(c.RuleOnChange, action=action, allow=st.booleans(), penalty=st.integers(-1, 4)),
        st.builds(c.Move, character=who, path=st.lists(zone, max_size=3)),
        st.builds(
            c.TakeOmen, character=who, omen=st.sampled_from(["Cleave", "Rally"]), grants=st.none() | st.just("Strike")
        ),
        st.builds(c.Environmental, text=st.just("the bridge sways")),
        st.just(c.EndRound()),
        st.builds(c.Reorder, order=st.permutations([p.id for p in queue(state)])),
    ]
    if state.phase == "scene":
        options += [st.just(c.OpenIntent())] * 3
    if state.phase == "intent":

        def intent(participant: str) -> st.SearchStrategy[c.Intent]:
            return st.builds(
                c.Intent,
                actions=st.lists(st.sampled_from(NAMES), max_size=3),
                note=st.just(sealed_text(table, participant)),
            )

        declare = who.flatmap(lambda p: st.builds(Declare, participant=st.just(p), payload=intent(p)))
        options += [declare] * 6
    if state.phase == "resolving":
        options += [st.builds(c.Roll, faces=_faces(table))] * 4
        waiting = [p.id for p in queue(state)]
        if waiting:  # a card skipped is never turned over: face down, its name stays its player's
            options += [st.builds(c.Skip, action=st.sampled_from(waiting))] * 2
    if state.rolling is not None:
        rolling = state.rolling
        cuts = st.lists(st.integers(0, 3), min_size=3, max_size=3)
        options += [st.builds(c.TakePenalty, reductions=cuts)] * 4
        if rolling.penalty:
            options.append(st.just(c.TakePenalty(reductions=[0] * 3)))
    if state.phase == "environment":
        options += [st.just(c.EndRound())] * 2
    return st.one_of(options)


def hidden(state: ContingencyState, viewer: Viewer) -> Iterable[str]:
    """Face down, the name of an action not turned over (planned, or skipped and so never resolved) is its
    player's and the GM's; so is a change asked for, in either mode."""
    if viewer.omniscient:
        return
    from server.rules.contingency.view import MEMBERS

    for i, action in enumerate(MEMBERS.view(state, viewer).actions):
        if viewer.controls(action.character):
            continue
        yield f"/rules/actions/{i}/change_asked"
        if state.mode == "face_down" and action.status in ("planned", "skipped"):
            yield f"/rules/actions/{i}/name"


def _every_field(struct: type[msgspec.Struct]) -> st.SearchStrategy[msgspec.Struct]:
    """Any value of ``struct`` with every field drawn (never a default factory left in place)."""
    hints = typing.get_type_hints(struct, include_extras=True)
    return st.builds(struct, **{name: st.from_type(hints[name]) for name in struct.__struct_fields__})


# Hostile commands are drawn with st.from_type: draw every field of this ruleset's wire types.
for _struct in [v for v in vars(c).values() if isinstance(v, type) and issubclass(v, msgspec.Struct)]:
    if _struct.__module__ == c.__name__:
        st.register_type_strategy(_struct, st.deferred(lambda s=_struct: _every_field(s)))
