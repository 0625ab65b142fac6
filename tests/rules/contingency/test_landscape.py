"""Changing landscapes: every change is an event; views show the map as it is, a replay as it was."""

from __future__ import annotations

from protocol.rulesets import contingency as c
from server.engine.contest import fold
from server.rules.contingency import codes
from tests.rules.contingency.table import ANN, GM, SPECTATOR, Table, encounter, line


def _cave() -> Table:
    zones, connections = line("mouth", "hall", "pit")
    return Table(
        encounter(
            zones,
            [
                c.Character(id="ann_pc", name="Rook", zone="hall"),
                c.Character(id="troll", name="Troll", zone="hall"),
                c.Character(id="bat", name="Bat", zone="mouth"),
            ],
            connections,
            players={"ann": ["ann_pc"]},
            engagements=[["ann_pc", "troll"]],
            things=[c.Thing(id="lever", name="Lever", zone="hall")],
        )
    )


def _zones(table: Table) -> dict[str, list[str]]:
    return {z.id: z.characters for z in table.view(SPECTATOR).rules.zones}


def _links(table: Table) -> set[tuple[str, str, int | None]]:
    return {
        (*sorted((k.a, k.b)), k.barrier.difficulty if k.barrier else None)  # type: ignore[misc]
        for k in table.view(SPECTATOR).rules.connections
    }


def test_a_split_places_everyone_and_keeps_the_neighbours() -> None:
    table = _cave()
    assert table.refused(ANN, c.SplitZone(zone="hall", into=[])) == "auth/forbidden"
    parts = [c.Zone(id="west", name="West hall"), c.Zone(id="east", name="East hall", traits=["Exposed"])]
    assert table.refused(GM, c.SplitZone(zone="hall", into=parts, placements={"ann_pc": "west"})) == codes.UNPLACED
    bad = {"ann_pc": "west", "troll": "mouth"}
    assert table.refused(GM, c.SplitZone(zone="hall", into=parts, placements=bad)) == codes.BAD_PLACEMENT
    split = table.events(
        table.do(GM, c.SplitZone(zone="hall", into=parts, placements={"ann_pc": "west", "troll": "east"}))
    )
    assert isinstance(split[0], c.ZoneSplit)
    assert _zones(table) == {"mouth": ["bat"], "pit": [], "west": ["ann_pc"], "east": ["troll"]}
    assert _links(table) == {
        ("east", "west", None),
        ("mouth", "west", None),
        ("east", "mouth", None),
        ("pit", "west", None),
        ("east", "pit", None),
    }
    assert table.view(SPECTATOR).rules.ranges["ann_pc"]["troll"] == "near"  # the engagement ended
    assert table.state.things["lever"].zone == "west"  # things not placed go to the first part
    # a replay shows the map as it was before the split
    before = fold(table.rules, table.log[:-1])
    assert set(before.rules.zones) == {"mouth", "hall", "pit"}


def test_merge_remove_traits_modifiers_connections_and_barriers() -> None:
    table = _cave()
    merged = c.Zone(id="cavern", name="Cavern", traits=["Intimidating"])
    table.do(GM, c.MergeZones(zones=["mouth", "hall"], into=merged))
    assert _zones(table) == {"pit": [], "cavern": ["ann_pc", "troll", "bat"]}
    assert _links(table) == {("cavern", "pit", None)}
    assert table.view(SPECTATOR).rules.ranges["ann_pc"]["troll"] == "engaged"

    table.do(GM, c.AddZone(zone=c.Zone(id="ledge", name="Ledge"), connections=[c.Connection(a="ledge", b="pit")]))
    assert table.refused(GM, c.AddZone(zone=c.Zone(id="pit", name="Pit again"))) == codes.ID_TAKEN
    table.do(GM, c.SetBarrier(a="pit", b="ledge", barrier=c.Barrier(difficulty=6, action="Climb")))
    assert _links(table) == {("cavern", "pit", None), ("ledge", "pit", 6)}
    table.do(GM, c.SetBarrier(a="pit", b="ledge", barrier=None))
    assert table.refused(GM, c.SetBarrier(a="cavern", b="ledge", barrier=None)) == codes.NOT_CONNECTED
    table.do(GM, c.Connect(connection=c.Connection(a="cavern", b="ledge")))
    assert table.refused(GM, c.Connect(connection=c.Connection(a="ledge", b="cavern"))) == codes.ALREADY_CONNECTED
    table.do(GM, c.Disconnect(a="cavern", b="ledge"))

    table.do(GM, c.AddTrait(zone="pit", trait="Limited Space"))
    assert table.refused(GM, c.AddTrait(zone="pit", trait="Limited Space")) == codes.HAS_TRAIT
    table.do(GM, c.RemoveTrait(zone="cavern", trait="Intimidating"))
    assert table.refused(GM, c.RemoveTrait(zone="cavern", trait="Intimidating")) == codes.NO_TRAIT
    table.do(GM, c.SetModifier(zone="pit", modifier=2))
    pit = next(z for z in table.view(SPECTATOR).rules.zones if z.id == "pit")
    assert (pit.traits, pit.modifier) == (["Limited Space"], 2)

    assert table.refused(GM, c.RemoveZone(zone="cavern", placements={"ann_pc": "pit"})) == codes.UNPLACED
    table.do(GM, c.RemoveZone(zone="cavern", placements={"ann_pc": "pit", "troll": "pit", "bat": "ledge"}))
    assert _zones(table) == {"pit": ["ann_pc", "troll"], "ledge": ["bat"]}
    assert table.state.things == {}  # the lever fell with the cavern
    kinds = [type(e.event).__name__ for e in table.log]
    for kind in ["ZonesMerged", "ZoneAdded", "BarrierSet", "Connected", "Disconnected", "TraitAdded", "TraitRemoved"]:
        assert kind in kinds
    assert kinds[-1] == "ZoneRemoved"


def test_a_forced_movement_zone_sweeps_who_did_not_move() -> None:
    zones, connections = line("bank", "rapids", "falls")
    zones[1] = c.Zone(id="rapids", name="River Rapids", traits=["Forced Movement"], forced_to="falls")
    table = Table(
        encounter(
            zones,
            [
                c.Character(id="ann_pc", name="Rook", zone="rapids"),
                c.Character(id="otter", name="Otter", zone="rapids"),
            ],
            connections,
            players={"ann": ["ann_pc"]},
        )
    )
    table.announce({"ann_pc": (ANN, []), "otter": (GM, ["Reposition"])})
    table.do(GM, c.Roll(faces=[1, 1, 1]))
    ended = table.events(table.do(GM, c.EndRound()))
    assert ended == [
        c.Placed(character="ann_pc", zone="falls", reason="swept"),
        c.RoundEnded(round=1),
        c.RoundStarted(round=2),
    ]
    assert table.state.fighters["otter"].zone == "rapids"  # it made a movement action
