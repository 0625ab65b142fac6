"""Every worked example of the rules text (seed 002), played through the engine."""

from __future__ import annotations

import pytest

from protocol.rulesets import contingency as c
from server.rules.contingency import codes
from tests.rules.contingency.table import ANN, BOB, GM, SPECTATOR, Table, encounter, line


def test_ellis_strikes_and_jacklyn_taunts_the_same_goblin() -> None:
    """Intent names actions, not targets; the Taunt (Influence) resolves before the Strike (Combat)."""
    zones = [c.Zone(id="hall", name="Hall")]
    table = Table(
        encounter(
            zones,
            [
                c.Character(id="ellis", name="Ellis", zone="hall"),
                c.Character(id="jacklyn", name="Jacklyn", zone="hall"),
                c.Character(id="goblin", name="Goblin", zone="hall"),
            ],
            players={"ann": ["ellis"], "bob": ["jacklyn"]},
            engagements=[["ellis", "goblin"]],
        )
    )
    table.announce({"ellis": (ANN, ["Strike"]), "jacklyn": (BOB, ["Taunt"]), "goblin": (GM, [])})
    shown = table.view(BOB).rules
    assert [(a.character, a.name, a.type) for a in shown.actions] == [
        ("jacklyn", "Taunt", "Influence"),
        ("ellis", "Strike", "Combat"),
    ]
    assert all(a.target is None for a in shown.actions)  # no targets announced
    table.do(BOB, c.SetTarget(action="jacklyn.1", target="goblin"))
    table.do(ANN, c.SetTarget(action="ellis.1", target="goblin"))
    assert table.view(SPECTATOR).rules.next_action == "jacklyn.1"
    assert table.view(SPECTATOR).rules.ranges["ellis"]["goblin"] == "engaged"


def _michael(faces: list[int]) -> Table:
    """Michael intimidates, then strikes: the Strike carries −2 and he rolls ``faces``."""
    table = Table(
        encounter(
            [c.Zone(id="yard", name="Yard")],
            [c.Character(id="michael", name="Michael", zone="yard"), c.Character(id="orc", name="Orc", zone="yard")],
            players={"ann": ["michael"]},
        )
    )
    table.announce({"michael": (ANN, ["Intimidate", "Strike"]), "orc": (GM, [])})
    first = table.events(table.do(GM, c.Roll(faces=[5, 5, 5])))
    assert isinstance(first[0], c.ActionRolled) and first[0].name == "Intimidate" and first[0].penalty == 0
    rolled = table.events(table.do(GM, c.Roll(faces=faces)))
    assert len(rolled) == 1 and isinstance(rolled[0], c.ActionRolled)
    assert rolled[0].name == "Strike" and rolled[0].penalty == 2  # waiting for Michael's choice
    return table


@pytest.mark.parametrize(
    ("reductions", "after", "result", "omen"),
    [
        ([0, 2, 0], [1, 2, 9], 2, 1),  # the 4 down to 2: the omen stays, a likelier failure
        ([0, 0, 2], [1, 4, 7], 4, 0),  # the 9 down to 7: the omen is sacrificed for a better result
        ([0, 1, 1], [1, 3, 8], 3, 1),  # 4 to 3 and 9 to 8: the omen stays, a mediocre result
    ],
)
def test_michaels_1_4_9_with_each_way_to_take_the_penalty(
    reductions: list[int], after: list[int], result: int, omen: int
) -> None:
    table = _michael([1, 4, 9])
    resolved = table.events(table.do(ANN, c.TakePenalty(reductions=reductions)))[0]
    assert isinstance(resolved, c.ActionResolved)
    assert (resolved.faces, resolved.result, resolved.omens) == (after, result, omen)


@pytest.mark.parametrize(
    "reductions",
    [
        [1, 1, 0],  # the 1 cannot be reduced further
        [0, 0, 0],  # the penalty must be taken
        [0, 2, 2],  # no more than the penalty
        [0, 3, -1],  # no die is raised
        [0, 2],  # one reduction per die
    ],
)
def test_michael_cannot_take_the_penalty_any_other_way(reductions: list[int]) -> None:
    table = _michael([1, 4, 9])
    assert table.refused(ANN, c.TakePenalty(reductions=reductions)) == codes.BAD_REDUCTIONS


def test_only_michael_or_the_gm_chooses_how_michael_takes_it() -> None:
    table = _michael([1, 4, 9])
    assert table.refused(SPECTATOR, c.TakePenalty(reductions=[0, 2, 0])) == "auth/forbidden"
    assert table.refused(ANN, c.Roll(faces=[2, 2, 2])) == codes.AWAITING_PENALTY


def test_aials_crevasse_is_hard_6() -> None:
    """A barrier needs its own roll: a step cannot cross it; a Leap needs 6 or higher."""
    zones, _ = line("ledge", "far_side")
    crevasse = c.Barrier(difficulty=6, action="Leap", note="a wide crevasse")
    table = Table(
        encounter(
            zones,
            [c.Character(id="aial", name="Aial", zone="ledge")],
            [c.Connection(a="ledge", b="far_side", barrier=crevasse)],
            players={"ann": ["aial"]},
        )
    )
    assert table.view(ANN).rules.ranges == {"aial": {}}
    table.announce({"aial": (ANN, ["Leap", "Strike"])})
    table.do(ANN, c.SetTarget(action="aial.1", target="far_side"))
    assert table.refused(GM, c.Roll(action="aial.2", step=c.Step(zone="far_side"), faces=[6, 6, 6])) == codes.BARRIER
    events = table.events(table.do(GM, c.Roll(faces=[2, 5, 9])))  # result 5: short of Hard (6)
    assert events[0].difficulty == 6 and events[1].result == 5 and events[1].success is False
    assert table.state.fighters["aial"].zone == "ledge"

    second = Table(table.request)
    second.announce({"aial": (ANN, ["Leap"])})
    second.do(ANN, c.SetTarget(action="aial.1", target="far_side"))
    events = second.events(second.do(GM, c.Roll(faces=[6, 6, 1])))  # result 6: across
    assert events[1].success is True
    assert events[2] == c.Placed(character="aial", zone="far_side", reason="crossed")
    assert second.state.fighters["aial"].zone == "far_side"


def test_nephis_carriages_go_from_easy_3_to_tricky_5() -> None:
    zones, _ = line("carriage_a", "carriage_b")
    gap = c.Connection(a="carriage_a", b="carriage_b", barrier=c.Barrier(difficulty=3, action="Leap"))
    request = encounter(zones, [c.Character(id="nephis", name="Nephis", zone="carriage_a")], [gap])
    table = Table(request)
    table.announce({"nephis": (GM, ["Leap"])})
    table.do(GM, c.SetTarget(action="nephis.1", target="carriage_b"))
    roll = table.events(table.do(GM, c.Roll(faces=[4, 4, 4])))
    assert roll[0].difficulty == 3 and roll[1].success is True  # Easy (3): a 4 makes it

    later = Table(request)
    later.announce({"nephis": (GM, [])})
    later.do(GM, c.EndRound())  # the next round: the carriages diverge
    changed = later.events(later.do(GM, c.SetBarrier(a="carriage_a", b="carriage_b", barrier=c.Barrier(5, "Leap"))))
    assert changed == [c.BarrierSet(a="carriage_a", b="carriage_b", barrier=c.Barrier(difficulty=5, action="Leap"))]
    later.announce({"nephis": (GM, ["Leap"])})
    later.do(GM, c.SetTarget(action="nephis.1", target="carriage_b"))
    roll = later.events(later.do(GM, c.Roll(faces=[4, 4, 4])))
    assert roll[0].difficulty == 5 and roll[1].success is False  # Tricky (5): a 4 falls short
    assert later.state.fighters["nephis"].zone == "carriage_a"


def _reposition(zones: list[c.Zone], connections: list[c.Connection], faces: list[int]) -> Table:
    table = Table(encounter(zones, [c.Character(id="shawn", name="Shawn", zone=zones[0].id)], connections))
    table.announce({"shawn": (GM, ["Reposition"])})
    table.do(GM, c.Roll(faces=faces))
    return table


def test_shawn_repositions_three_zones_with_a_result_of_6() -> None:
    zones, connections = line("z0", "z1", "z2", "z3", "z4")
    table = _reposition(zones, connections, [2, 6, 9])
    assert table.view(GM).rules.characters[0].movement_points == 7  # 1 + 6
    assert table.refused(GM, c.Move(character="shawn", path=["z1", "z2", "z3", "z4"])) == (
        codes.NOT_ENOUGH_MOVEMENT_POINTS
    )
    moved = table.events(table.do(GM, c.Move(character="shawn", path=["z1", "z2", "z3"])))
    assert moved == [c.Moved(character="shawn", path=["z1", "z2", "z3"], cost=6)]
    assert table.state.fighters["shawn"].zone == "z3" and table.state.fighters["shawn"].mp == 1


@pytest.mark.parametrize(("result", "moves"), [(3, True), (2, False)])
def test_moving_out_of_a_plus_2_zone_into_a_plus_1_zone_costs_4(result: int, moves: bool) -> None:
    zones, connections = line("bog", "scree", bog=2, scree=1)
    table = _reposition(zones, connections, [result, result, result])
    move = c.Move(character="shawn", path=["scree"])
    if moves:  # 1 + 3 = 4 movement points: exactly enough
        assert table.events(table.do(GM, move)) == [c.Moved(character="shawn", path=["scree"], cost=4)]
    else:  # 1 + 2 = 3: one short
        assert table.refused(GM, move) == codes.NOT_ENOUGH_MOVEMENT_POINTS


def _gorge() -> Table:
    """path — ledge — far side: open ground to the ledge, a Hard (6) crevasse beyond it."""
    zones, connections = line("path", "ledge")
    zones.append(c.Zone(id="far_side", name="Far side"))
    crevasse = c.Barrier(difficulty=6, action="Leap", note="a wide crevasse")
    connections.append(c.Connection(a="ledge", b="far_side", barrier=crevasse))
    table = Table(encounter(zones, [c.Character(id="aial", name="Aial", zone="path")], connections))
    table.announce({"aial": (GM, ["Leap"])})
    table.do(GM, c.SetTarget(action="aial.1", target="far_side"))
    return table


def test_a_step_to_the_edge_then_a_leap_is_judged_from_the_edge() -> None:
    """Aial steps onto the ledge with the Leap: the crevasse beside the ledge sets the Hard (6)."""
    table = _gorge()
    events = table.events(table.do(GM, c.Roll(step=c.Step(zone="ledge"), faces=[6, 6, 1])))
    assert events[0] == c.StepTaken(character="aial", action="aial.1", step=c.Step(zone="ledge"))
    assert events[1].difficulty == 6 and events[2].result == 6 and events[2].success is True
    assert events[3] == c.Placed(character="aial", zone="far_side", reason="crossed")
    assert table.state.fighters["aial"].zone == "far_side"


def test_a_step_to_the_edge_then_a_short_leap_stays_on_the_edge() -> None:
    table = _gorge()
    events = table.events(table.do(GM, c.Roll(step=c.Step(zone="ledge"), faces=[2, 5, 9])))
    assert events[1].difficulty == 6 and events[2].result == 5 and events[2].success is False
    assert not any(isinstance(e, c.Placed) for e in events)
    assert table.state.fighters["aial"].zone == "ledge"


def test_the_rickety_bridge_gives_way_and_the_party_jumps_to_safety() -> None:
    """Environmental action: the planks give way; a jump to safety (Triggered) or a fall into the chasm."""
    zones, connections = line("bridge", "cliff")
    zones.append(c.Zone(id="chasm", name="Chasm"))
    jump = c.ActionDef(name="Jump to Safety", type="Triggered")
    party = [c.Character(id=n, name=n.capitalize(), zone="bridge") for n in ("ann_pc", "bob_pc")]
    table = Table(
        encounter(
            zones,
            party,
            connections,
            players={"ann": ["ann_pc"], "bob": ["bob_pc"]},
            actions=[jump, c.ActionDef(name="Leap", type="Movement")],
            players_type_faces=True,
        )
    )
    table.announce({"ann_pc": (ANN, []), "bob_pc": (BOB, [])})
    table.do(GM, c.Environmental(text="the planks give way beneath your feet"))
    leap = c.Perform(character="ann_pc", action="Leap", kind="triggered", faces=[6, 6, 6])
    assert table.refused(ANN, leap) == codes.NOT_TRIGGERED  # a Movement action is announced, not triggered
    safe = table.events(
        table.do(GM, c.Perform(character="ann_pc", action=jump.name, kind="triggered", difficulty=5, faces=[5, 6, 2]))
    )
    assert safe[1].result == 5 and safe[1].success is True
    table.do(GM, c.Place(character="ann_pc", zone="cliff"))
    fall = table.events(
        table.do(GM, c.Perform(character="bob_pc", action=jump.name, kind="triggered", difficulty=5, faces=[1, 4, 9]))
    )
    assert fall[1].result == 4 and fall[1].success is False
    table.do(GM, c.RemoveZone(zone="bridge", placements={"bob_pc": "chasm"}))
    where = {ch.id: ch.zone for ch in table.view(SPECTATOR).rules.characters}
    assert where == {"ann_pc": "cliff", "bob_pc": "chasm"}
