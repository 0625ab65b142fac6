"""The lines people read for an encounter name zones, characters, things and actions ("Rook's Strike"), never
their ids; and a command may name a zone, a character or a thing by the name people read, which the decision
turns into the id the event stores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from protocol.common import Actor, Seat
from protocol.errors import Refused
from protocol.events import CreateContest, Declare
from protocol.rulesets import contingency as c
from server.engine.contest import Contest, fold
from server.engine.names import Naming
from server.rules.contingency import codes
from server.rules.contingency.describe import names
from tests.rules.contingency.table import GM, SPECTATOR, Table
from tests.rules.lines import ids_in, told

ANN = Actor("s-ann", "player")


def _keep(mode: c.IntentMode = "public") -> Table:
    """A courtyard and a main hall, and a well beside neither; Rook (Ann's) and a bandit; a chest."""
    return Table(
        CreateContest(
            ruleset="contingency",
            title="The keep",
            dice="physical",
            seats=[Seat("gm", "gm"), Seat("s-ann", "player", ["c-rook"], name="Ann")],
            setup=c.ContingencySetup(
                zones=[
                    c.Zone(id="z-yard", name="Courtyard"),
                    c.Zone(id="z-hall", name="Main hall"),
                    c.Zone(id="z-well", name="Well", traits=["Forced Movement"]),
                ],
                connections=[c.Connection(a="z-yard", b="z-hall")],
                characters=[
                    c.Character(id="c-rook", name="Rook", zone="z-yard"),
                    c.Character(id="c-bandit", name="Bandit", zone="z-hall"),
                ],
                things=[c.Thing(id="t-chest", name="Chest", zone="z-yard")],
                intent=mode,
                players_type_faces=True,
            ),
        )
    )


def _intents(table: Table, rook: list[str], bandit: list[str]) -> None:
    table.do(GM, c.OpenIntent())
    table.do(ANN, Declare(participant="c-rook", payload=c.Intent(actions=rook, note="keep low")))
    table.do(GM, Declare(participant="c-bandit", payload=c.Intent(actions=bandit)))


def played() -> Table:
    """Two rounds: every zone, character and thing a command names is named by its name, in any case."""
    table = _keep()
    table.do(GM, c.SetScene(text="Rain on the flagstones", foreshadow="the gate creaks"))
    _intents(table, ["Reposition", "Strike"], ["Shoot"])
    table.do(GM, c.SetTarget(action="c-bandit.1", target="rook"))
    table.do(ANN, c.SetTarget(action="c-rook.2", target=" bandit "))
    table.do(GM, c.SetDifficulty(action="c-rook.2", difficulty=5))
    table.do(ANN, c.Roll(faces=[6, 6, 6]))  # Reposition: 7 movement points
    table.do(ANN, c.Move(character="Rook", path=["main HALL"]))
    table.do(ANN, c.Roll(step=c.Step(engage="Bandit"), faces=[9, 9, 9]))
    table.do(ANN, c.TakePenalty(reductions=[2, 0, 0]))
    table.do(ANN, c.TakeOmen(character="Rook", omen="Press", grants="Strike"))
    table.do(ANN, c.Perform(character="rook", action="Strike", kind="instant", target="Bandit", faces=[4, 4, 4]))
    table.do(ANN, c.TakePenalty(reductions=[2, 0, 0]))
    table.do(GM, c.Roll(faces=[5, 5, 5]))
    table.do(GM, c.Environmental(text="the well overflows"))
    gate = c.Zone(id="z-gate", name="Gate", forced_to="Courtyard")
    table.do(GM, c.AddZone(zone=gate, connections=[c.Connection(a="Gate", b="courtyard")]))
    table.do(GM, c.AddTrait(zone="Gate", trait="Exposed"))
    table.do(GM, c.RemoveTrait(zone="gate", trait="Exposed"))
    table.do(GM, c.SetModifier(zone="Well", modifier=1, forced_to="Courtyard"))
    table.do(GM, c.Connect(connection=c.Connection(a="Well", b="Main hall")))
    table.do(GM, c.SetBarrier(a="Well", b="Main hall", barrier=c.Barrier(difficulty=4, action="Climb")))
    table.do(GM, c.Disconnect(a="well", b="main hall"))
    table.do(GM, c.AddCharacter(character=c.Character(id="c-owl", name="Owl", zone="Well")))
    table.do(GM, c.Place(character="Owl", zone="Gate"))
    table.do(GM, c.Disengage(a="Rook", b="Bandit"))
    table.do(GM, c.Engage(a="rook", b="BANDIT"))
    parts = [c.Zone(id="z-nave", name="Nave"), c.Zone(id="z-aisle", name="Aisle")]
    table.do(GM, c.SplitZone(zone="Main hall", into=parts, placements={"Rook": "Nave", "Bandit": "aisle"}))
    table.do(GM, c.MergeZones(zones=["Nave", "Aisle"], into=c.Zone(id="z-great", name="Great hall")))
    table.do(GM, c.RemoveZone(zone="Well"))
    table.do(GM, c.EndRound())  # Owl stands in the Gate, which sweeps into the Courtyard
    table.do(GM, c.RemoveCharacter(character="Owl"))
    _intents(table, ["Strike", "Taunt"], ["Shoot"])
    table.do(GM, c.Reorder(order=["c-bandit.1", "c-rook.2", "c-rook.1"]))
    table.do(ANN, c.ChangeAction(action="c-rook.2", to="Parley"))
    table.do(GM, c.RuleOnChange(action="c-rook.2", allow=True, penalty=1))
    table.do(ANN, c.Skip(action="c-rook.1"))
    table.do(GM, c.Roll(faces=[5, 5, 5]))
    table.do(ANN, c.Roll(step=c.Step(zone="courtyard"), faces=[7, 7, 7]))
    table.do(ANN, c.TakePenalty(reductions=[1, 0, 0]))
    return table


def lines(table: Table, actor: Actor = GM) -> list[tuple[Any, str, str, Naming]]:
    """Each event ``actor`` is told of, with its line as people read it, as it reads with no names, and the
    naming it was read with (an action's id names another action in the next round)."""
    return [
        (line.event, line.named, line.bare, line.naming)
        for line in told(table.rules, table.contest.created.seats, table.log, actor)
    ]


def _ids(text: str, ids: Mapping[str, str]) -> list[str]:
    """The ids (of those whose name differs) ``text`` shows as whole words."""
    return ids_in(text, ids)


def _every_name(table: Table) -> dict[str, str]:
    """Every id the encounter ever named, by its name, and the player's seat."""
    ids: dict[str, str] = {"s-ann": "Ann"}
    contest: Contest[Any] | None = None
    for envelope in table.log:
        contest = fold(table.rules, [envelope], contest)
        ids.update(names(contest.rules))
    return ids


def test_every_line_names_what_it_tells_of_and_shows_no_id() -> None:
    table = played()
    ids = _every_name(table)
    assert {"c-rook.1", "c-owl", "z-gate", "z-nave", "t-chest"} <= set(ids)
    for actor in (GM, ANN, SPECTATOR):
        told = lines(table, actor)
        assert len(told) == len(table.log)
        for event, named, bare, named_by in told:
            assert _ids(named, ids) == [], (event, named)
            shown = {**named_by.things, **named_by.seats}
            for ident in _ids(bare, shown):
                assert shown[ident] in named, (event, named)


def test_what_the_lines_say() -> None:
    said = [named for _, named, _, _ in lines(played())]
    for line in [
        "Rook declared, sealed: Reposition, Strike — “keep low”",
        "Bandit's Shoot targets Rook",
        "Rook's Strike has difficulty 5",
        "Rook moves to Main hall (2 movement points)",
        "Rook takes a step to engage Bandit",
        "Rook's Strike (Combat, announced) against 5, aimed at Bandit: rolled 9-9-9 on d10/d10/d10, penalty −2",
        "Rook's Strike: 7-9-9, result 9, 1 omen(s) — success",
        "zone Gate appears, beside Courtyard",
        "Well costs +1 movement, sweeping into Courtyard",
        "between Well and Main hall: Climb (4)",
        "Owl joins in Well",
        "Rook and Bandit are engaged",
        "zone Main hall splits into Nave, Aisle (Rook to Nave, Bandit to Aisle)",
        "zones Nave, Aisle merge into Great hall",
        "Owl is swept into Courtyard",
        "Owl leaves the encounter",
        "the GM orders the actions: Bandit's Shoot, Rook's Taunt, Rook's Strike",
        "Rook's Taunt: asks to change to Parley",
        "Rook's Parley: the change is allowed, with a penalty of 1",
        "Rook cannot perform Strike",
        "Rook takes a step into Courtyard",
    ]:
        assert line in said, line


def test_the_events_hold_the_ids_of_what_was_named_by_name() -> None:
    events = [e.event for e in played().log]

    def first(kind: type[Any]) -> Any:
        return next(e for e in events if isinstance(e, kind))

    assert [e.target for e in events if isinstance(e, c.TargetSet)] == ["c-rook", "c-bandit"]
    assert first(c.Moved) == c.Moved(character="c-rook", path=["z-hall"], cost=2)
    assert [e.step for e in events if isinstance(e, c.StepTaken)] == [c.Step(engage="c-bandit"), c.Step(zone="z-yard")]
    assert [e.target for e in events if isinstance(e, c.ActionRolled) and e.kind == "instant"] == ["c-bandit"]
    added = first(c.ZoneAdded)
    assert added.zone.forced_to == "z-yard" and added.connections == [c.Connection(a="z-gate", b="z-yard")]
    assert first(c.TraitRemoved).zone == "z-gate"
    assert first(c.ModifierSet).forced_to == "z-yard"
    assert first(c.Connected).connection == c.Connection(a="z-well", b="z-hall")
    assert (first(c.BarrierSet).a, first(c.Disconnected).b) == ("z-well", "z-hall")
    assert first(c.CharacterAdded).character.zone == "z-well"
    assert first(c.Placed) == c.Placed(character="c-owl", zone="z-gate")
    assert (first(c.Engaged).a, first(c.Engaged).b) == ("c-rook", "c-bandit")
    assert first(c.ZoneSplit).placements == {"c-rook": "z-nave", "c-bandit": "z-aisle"}
    assert first(c.ZonesMerged).zones == ["z-nave", "z-aisle"]
    assert first(c.CharacterRemoved).character == "c-owl"


def _refusal(table: Table, actor: Actor, command: Any) -> tuple[str, str]:
    with pytest.raises(Refused) as refused:
        table.do(actor, command)
    return refused.value.code, refused.value.message


def _repositioned() -> Table:
    table = _keep()
    _intents(table, ["Reposition"], [])
    table.do(ANN, c.Roll(faces=[6, 6, 6]))
    return table


def test_a_player_moves_to_a_zone_by_its_name() -> None:
    table = _repositioned()
    moved = table.events(table.do(ANN, c.Move(character="rook", path=["  Main Hall "])))
    assert moved == [c.Moved(character="c-rook", path=["z-hall"], cost=2)]
    assert table.state.fighters["c-rook"].zone == "z-hall"


def test_an_unknown_zone_is_refused_with_the_zones_there_are() -> None:
    table = _repositioned()
    assert _refusal(table, ANN, c.Move(character="Rook", path=["Gate"])) == (
        codes.NO_SUCH_ZONE,
        "path[0]: there is no zone called “Gate”: the zones are Courtyard, Main hall, Well",
    )
    assert _refusal(table, ANN, c.Move(character="Rook", path=["Well"]))[0] == codes.NOT_ADJACENT
    code, message = _refusal(table, ANN, c.Move(character="Wren", path=["Main hall"]))
    assert (code, message) == (
        codes.NO_SUCH_CHARACTER,
        "character: there is no character called “Wren”: the characters are Bandit, Rook",
    )
    assert _refusal(table, ANN, c.Move(character="Bandit", path=["Courtyard"]))[0] == codes.NOT_YOUR_CHARACTER


def test_a_name_two_zones_share_is_refused_and_the_id_still_works() -> None:
    table = _keep()
    table.do(GM, c.AddZone(zone=c.Zone(id="z-hall-2", name="main hall"), connections=[]))
    assert _refusal(table, GM, c.Place(character="Rook", zone="Main hall")) == (
        codes.NO_SUCH_ZONE,
        "zone: 2 zones are called “Main hall”: name one by its id (z-hall, z-hall-2)",
    )
    table.do(GM, c.Place(character="Rook", zone="z-hall-2"))
    assert table.state.fighters["c-rook"].zone == "z-hall-2"


def test_a_thing_and_a_target_are_named_by_their_names() -> None:
    table = _keep()
    _intents(table, ["Strike"], [])
    table.do(ANN, c.SetTarget(action="c-rook.1", target="chest"))
    assert table.state.actions["c-rook.1"].target == "t-chest"
    code, message = _refusal(table, ANN, c.Roll(step=c.Step(reach="Rope"), faces=[4, 4, 4]))
    assert (code, message) == (
        codes.NOT_IN_ZONE,
        "step.reach: there is no thing called “Rope” in Courtyard: the things in Courtyard are Chest",
    )
    rolled = table.events(table.do(ANN, c.Roll(step=c.Step(reach="Chest"), faces=[4, 4, 4])))
    assert rolled[0] == c.StepTaken(character="c-rook", action="c-rook.1", step=c.Step(reach="t-chest"))
    assert _refusal(table, GM, c.Perform(character="Bandit", action="Defend", kind="triggered", target="Gate")) == (
        codes.NO_SUCH_TARGET,
        "target: there is no zone, character or thing called “Gate”: "
        "the zones, characters and things are Bandit, Chest, Courtyard, Main hall, Rook, Well",
    )


def test_a_face_down_card_is_named_by_its_type_until_it_is_turned_over() -> None:
    table = _keep("face_down")
    _intents(table, ["Strike"], ["Shoot"])
    assert names(table.state)["c-rook.1"] == "Rook's face-down Combat action"
    for _, named, _, _ in lines(table, SPECTATOR):
        assert "Strike" not in named and "Shoot" not in named, named
    table.do(ANN, c.Roll(action="c-rook.1", faces=[4, 4, 4]))
    assert names(table.state)["c-rook.1"] == "Rook's Strike"
    assert names(table.state)["c-bandit.1"] == "Bandit's face-down Combat action"
