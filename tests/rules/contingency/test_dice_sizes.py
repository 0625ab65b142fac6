"""The three dice take their sizes from the attribute and skill a roll is made with (RULES.md §5)."""

from __future__ import annotations

import msgspec

from protocol.errors import BAD_FACE
from protocol.rulesets import contingency as c
from server.rules.contingency import codes
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from tests.rules.contingency.table import ANN, GM, Table, encounter, line

# Shawn repositions "using their Agility attribute and Mobility skill" (seed, Repositioning)
ACTIONS = [
    msgspec.structs.replace(a, attribute="Agility", skill="Mobility") if a.name == "Reposition" else a
    for a in DEFAULT_ACTIONS
]
SHAWN = c.Character(
    id="shawn",
    name="Shawn",
    zone="z0",
    skills=[
        c.SkillDice(attribute="Agility", skill="Mobility", dice=[8, 6, 12]),
        c.SkillDice(attribute="Might", skill="Athletics", dice=[4, 4, 6]),
    ],
)


def _table(dice: str = "physical") -> Table:
    zones, connections = line("z0", "z1", "z2")
    request = encounter(
        zones, [SHAWN], connections, players={"ann": ["shawn"]}, actions=ACTIONS, players_type_faces=True
    )
    table = Table(msgspec.structs.replace(request, dice=dice))
    table.announce({"shawn": (ANN, ["Reposition", "Strike"])})
    return table


def test_an_action_rolls_the_dice_of_its_attribute_and_skill() -> None:
    table = _table()
    assert table.refused(ANN, c.Roll(faces=[8, 7, 12])) == BAD_FACE  # a 7 is no face of the Mobility d6
    rolled = table.events(table.do(ANN, c.Roll(faces=[8, 6, 12])))
    assert rolled[0].attribute == "Agility" and rolled[0].skill == "Mobility"
    assert rolled[0].dice.sides == [8, 6, 12]
    assert rolled[1].result == 8 and table.state.fighters["shawn"].mp == 9  # 1 + the middle die


def test_an_action_with_no_attribute_and_skill_rolls_the_default_d10s() -> None:
    table = _table()
    table.do(ANN, c.Roll(faces=[2, 2, 2]))  # the Reposition
    rolled = table.events(table.do(ANN, c.Roll(faces=[10, 10, 1])))
    assert rolled[0].name == "Strike" and rolled[0].dice.sides == [10, 10, 10] and rolled[0].attribute is None


def test_a_roll_may_name_another_attribute_and_skill_of_the_sheet() -> None:
    table = _table("server")
    table.do(ANN, c.Roll())  # the Reposition
    strike = c.Roll(attribute="Might", skill="Athletics")
    rolled = table.events(table.do(ANN, strike))[0]
    assert rolled.dice.sides == [4, 4, 6]
    assert all(1 <= f <= n for f, n in zip(rolled.dice.faces, [4, 4, 6], strict=True))


def test_a_roll_naming_dice_the_sheet_lacks_is_refused() -> None:
    table = _table()
    assert table.refused(ANN, c.Roll(attribute="Wits", skill="Mobility", faces=[5, 5, 5])) == codes.NO_SUCH_SKILL
    perform = c.Perform(character="shawn", action="Defend", kind="triggered", skill="Parry", faces=[5, 5, 5])
    assert table.refused(ANN, perform) == codes.NO_SUCH_SKILL


def test_a_sheet_with_a_pair_twice_or_a_die_too_small_is_refused() -> None:
    twice = [SHAWN.skills[0], SHAWN.skills[0]]
    bad = msgspec.structs.replace(SHAWN, id="twin", skills=twice)
    table = _table()
    assert table.refused(GM, c.AddCharacter(character=bad)) == codes.BAD_DICE
    tiny = msgspec.structs.replace(SHAWN, id="tiny", skills=[c.SkillDice("Agility", "Mobility", [1, 6, 6])])
    assert table.refused(GM, c.AddCharacter(character=tiny)) == codes.BAD_DICE
