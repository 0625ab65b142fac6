"""What a client writer reads in docs/rules/contingency.md, checked: a penalty the dice cannot take whole takes
all they can lose above 1, and a step is movement but no movement action, so it does not keep a character
out of a Forced Movement zone's current."""

from __future__ import annotations

from protocol.rulesets import contingency as c
from tests.rules.contingency.table import ANN, GM, Table, encounter, line


def _michael(faces: list[int]) -> list[object]:
    """Michael intimidates, then strikes with ``faces`` under the second action's −2."""
    table = Table(
        encounter(
            [c.Zone(id="yard", name="Yard")],
            [c.Character(id="michael", name="Michael", zone="yard"), c.Character(id="orc", name="Orc", zone="yard")],
            players={"ann": ["michael"]},
        )
    )
    table.announce({"michael": (ANN, ["Intimidate", "Strike"]), "orc": (GM, [])})
    table.do(GM, c.Roll(faces=[5, 5, 5]))
    return table.events(table.do(GM, c.Roll(faces=faces)))


def test_a_penalty_the_dice_cannot_take_whole_stops_at_1_and_resolves_at_once() -> None:
    rolled, resolved = _michael([2, 1, 1])[:2]
    assert isinstance(rolled, c.ActionRolled) and rolled.penalty == 2
    assert isinstance(resolved, c.ActionResolved)
    assert (resolved.reductions, resolved.faces, resolved.result) == ([1, 0, 0], [1, 1, 1], 1)


def test_a_step_into_a_forced_movement_zone_does_not_keep_its_taker_from_being_swept() -> None:
    zones, connections = line("bank", "rapids", "falls")
    zones[1] = c.Zone(id="rapids", name="River Rapids", traits=["Forced Movement"], forced_to="falls")
    table = Table(
        encounter(
            zones,
            [c.Character(id="rook", name="Rook", zone="bank"), c.Character(id="otter", name="Otter", zone="falls")],
            connections,
            players={"ann": ["rook"]},
        )
    )
    table.announce({"rook": (ANN, ["Taunt"]), "otter": (GM, [])})
    table.do(GM, c.Roll(step=c.Step(zone="rapids"), faces=[5, 5, 5]))  # a step with an Influence action
    assert table.state.fighters["rook"].zone == "rapids"
    ended = table.events(table.do(GM, c.EndRound()))
    assert ended[0] == c.Placed(character="rook", zone="falls", reason="swept")


def test_a_step_out_of_a_forced_movement_zone_leaves_its_current_behind() -> None:
    zones, connections = line("bank", "rapids", "falls")
    zones[1] = c.Zone(id="rapids", name="River Rapids", traits=["Forced Movement"], forced_to="falls")
    table = Table(
        encounter(
            zones,
            [c.Character(id="rook", name="Rook", zone="rapids"), c.Character(id="otter", name="Otter", zone="falls")],
            connections,
            players={"ann": ["rook"]},
        )
    )
    table.announce({"rook": (ANN, ["Taunt"]), "otter": (GM, [])})
    table.do(GM, c.Roll(step=c.Step(zone="bank"), faces=[5, 5, 5]))
    ended = table.events(table.do(GM, c.EndRound()))
    assert not any(isinstance(e, c.Placed) for e in ended) and table.state.fighters["rook"].zone == "bank"
