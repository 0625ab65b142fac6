"""What a table holds: a battle map, bounded in the setup and in every change that adds to it."""

from __future__ import annotations

import itertools

import pytest

from protocol.errors import Refused
from protocol.rulesets import contingency as c
from server.rules.contingency import codes, zones
from server.rules.contingency.limits import MAX_CHARACTERS, MAX_CONNECTIONS, MAX_THINGS, MAX_TRAITS, MAX_ZONES
from tests.rules.contingency.table import ANN, GM, SPECTATOR, Table, encounter, line


def _full(connections: int = MAX_CONNECTIONS) -> Table:
    """A chain of the most zones, one character in each, plus cross links up to ``connections``."""
    names = [f"z{i}" for i in range(MAX_ZONES)]
    chain_zones, chain = line(*names)
    extra = [c.Connection(a=a, b=b) for a, b in itertools.combinations(names, 2) if abs(int(a[1:]) - int(b[1:])) > 1][
        : connections - len(chain)
    ]
    return Table(
        encounter(
            [c.Zone(id=z.id, name=z.name, traits=[f"T{t}" for t in range(MAX_TRAITS)]) for z in chain_zones],
            [c.Character(id=f"pc{i}", name=f"Pc {i}", zone=f"z{i}") for i in range(MAX_CHARACTERS)],
            chain + extra,
            players={"ann": ["pc0"]},
            things=[c.Thing(id=f"t{i}", name=f"Thing {i}", zone="z0") for i in range(MAX_THINGS)],
        )
    )


def _setup_code(**setup: object) -> str:
    zones_, connections = line("a", "b")
    fields = {"zones": zones_, "characters": [c.Character(id="pc", name="Pc", zone="a")], "connections": connections}
    fields.update(setup)
    with pytest.raises(Refused) as refused:
        Table(encounter(players={"ann": ["pc"]}, **fields))  # type: ignore[arg-type]
    return refused.value.code


def test_a_full_table_shows_every_range_from_one_search_per_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _full(connections=MAX_ZONES - 1)  # a chain: the longest paths
    searches: list[str] = []
    search = zones.Ranges._reachable

    def counted(self: zones.Ranges, start: str) -> set[str]:
        if start not in self._reach:  # a breadth-first search, not the one already made
            searches.append(start)
        return search(self, start)

    monkeypatch.setattr(zones.Ranges, "_reachable", counted)
    ranges = table.view(SPECTATOR).rules.ranges
    assert (
        len(ranges) == MAX_CHARACTERS
        and ranges["pc0"]["pc1"] == "near"
        and ranges["pc0"][f"pc{MAX_CHARACTERS - 1}"] == "far"
    )
    assert len(searches) == len(set(searches)) <= MAX_ZONES


def test_the_setup_refuses_a_table_over_its_bounds() -> None:
    many = [c.Zone(id=f"z{i}", name="Z") for i in range(MAX_ZONES + 1)]
    assert _setup_code(zones=many) == codes.BAD_SETUP
    crowd = [c.Character(id=f"pc{i}", name="Pc", zone="a") for i in range(MAX_CHARACTERS)]
    assert _setup_code(characters=[c.Character(id="pc", name="Pc", zone="a"), *crowd]) == codes.BAD_SETUP
    stuff = [c.Thing(id=f"t{i}", name="T", zone="a") for i in range(MAX_THINGS + 1)]
    assert _setup_code(things=stuff) == codes.BAD_SETUP
    traits = [c.Zone(id="a", name="A", traits=[f"T{t}" for t in range(MAX_TRAITS + 1)]), c.Zone(id="b", name="B")]
    assert _setup_code(zones=traits) == codes.BAD_SETUP
    web = [c.Zone(id=f"z{i}", name="Z") for i in range(24)] + [c.Zone(id="a", name="A")]
    links = [c.Connection(a=p.id, b=q.id) for p, q in itertools.combinations(web, 2)][: MAX_CONNECTIONS + 1]
    assert _setup_code(zones=web, connections=links) == codes.BAD_SETUP


def test_a_full_table_refuses_every_change_that_adds_to_it() -> None:
    table = _full()
    new = c.Zone(id="new", name="New")
    assert table.refused(GM, c.AddZone(zone=new)) == codes.TABLE_FULL
    split = c.SplitZone(
        zone="z5", into=[c.Zone(id="p1", name="P1"), c.Zone(id="p2", name="P2")], placements={"pc5": "p1"}
    )
    assert table.refused(GM, split) == codes.TABLE_FULL
    assert table.refused(GM, c.AddCharacter(character=c.Character(id="x", name="X", zone="z0"))) == codes.TABLE_FULL
    assert table.refused(GM, c.AddTrait(zone="z0", trait="Slick")) == codes.TABLE_FULL
    # removing a connection frees one place, and only one
    table.do(GM, c.Disconnect(a="z0", b="z2"))
    table.do(GM, c.Connect(connection=c.Connection(a="z0", b="z2")))
    assert table.refused(GM, c.Connect(connection=c.Connection(a="z20", b="z30"))) == codes.TABLE_FULL
    # what keeps the table at its size is still played
    table.do(GM, c.RemoveTrait(zone="z0", trait="T0"))
    table.do(GM, c.AddTrait(zone="z0", trait="Slick"))
    table.do(GM, c.RemoveCharacter(character="pc9"))
    table.do(GM, c.AddCharacter(character=c.Character(id="x", name="X", zone="z0")))


def test_an_added_character_holds_only_the_tables_actions() -> None:
    zones_, connections = line("a", "b")
    table = Table(encounter(zones_, [c.Character(id="pc", name="Pc", zone="a")], connections, players={"ann": ["pc"]}))
    odd = c.Character(id="x", name="X", zone="a", actions=["Fly", "Teleport"])
    assert table.refused(GM, c.AddCharacter(character=odd)) == codes.UNKNOWN_ACTION
    assert _setup_code(characters=[c.Character(id="pc", name="Pc", zone="a", actions=["Fly"])]) == codes.BAD_SETUP
    table.do(GM, c.AddCharacter(character=c.Character(id="x", name="X", zone="a", actions=["Strike"])))
    assert table.refused(ANN, c.AddCharacter(character=c.Character(id="y", name="Y", zone="a"))) == "auth/forbidden"


def test_a_zone_is_given_each_trait_once() -> None:
    twice = [c.Zone(id="a", name="A", traits=["Dark", "Dark"]), c.Zone(id="b", name="B")]
    assert _setup_code(zones=twice) == codes.HAS_TRAIT
    zones_, connections = line("a", "b")
    table = Table(encounter(zones_, [c.Character(id="pc", name="Pc", zone="a")], connections))
    assert table.refused(GM, c.AddZone(zone=c.Zone(id="c", name="C", traits=["Dark", "Dark"]))) == codes.HAS_TRAIT
    assert table.refused(GM, c.AddZone(zone=c.Zone(id="c", name="C", traits=[" "]))) == codes.NO_TRAIT
    table.do(GM, c.AddZone(zone=c.Zone(id="c", name="C", traits=["Dark"])))
    assert table.refused(GM, c.AddTrait(zone="c", trait="Dark")) == codes.HAS_TRAIT
