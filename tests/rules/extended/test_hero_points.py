"""Extended contests: a hero point is offered only when a step up could change what the exchange does (the
AP each side loses or gains; an asymmetrical win; a group's Fumble-against-Fumble tie), never to take away a
win that moves no AP."""

from __future__ import annotations

from msgspec.structs import replace

from protocol.events import CreateContest
from protocol.rulesets import extended as x
from tests.engine.table import ANN, BOB, GM, Table, duel
from tests.rules.extended.group import raid
from tests.rules.extended.test_group import everyone_attacks


def handicapped_duel() -> CreateContest:
    """Ann's Aria (15, handicap 4) against Bob's orc (4); both hold a hero point."""
    request = duel(orc="4", pvp=True)
    assert isinstance(request.setup, x.ExtendedSetup)
    aria, orc = request.setup.contestants
    return replace(request, setup=replace(request.setup, contestants=[replace(aria, edge=-4), orc]))


def test_no_hero_point_to_turn_a_win_that_moves_no_ap_into_a_tie() -> None:
    table = Table(handicapped_duel())
    table.declare(x.Intent(bid=4), x.Intent(bid=3), orc_actor=BOB)  # 4 − 4: the orc pays nothing if Aria wins
    table.do(GM, x.Roll(faces=[5, 5]))  # Aria's Success against the orc's Failure; its Success would tie
    assert table.rules.exchange.eligible == []
    assert table.refused(BOB, x.SpendHeroPoint(contestant="orc")) == "rules/hero_point_no_effect"
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    table.do(BOB, x.PassHeroPoint(contestant="orc"))
    assert (table.ap("aria"), table.ap("orc")) == (15, 4)


def test_in_an_asymmetrical_exchange_a_hero_point_may_take_the_actors_win_away() -> None:
    """Winning an asymmetrical exchange is what the actor plays for (its other goal succeeds), AP or not."""
    table = Table(handicapped_duel())
    table.declare(x.Intent(bid=4, kind="asymmetrical"), x.Intent(bid=3), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[5, 5]))
    assert table.rules.exchange.eligible == ["orc"]


def test_in_a_group_a_hero_point_may_take_away_a_fumble_tie_the_gm_could_make_costly() -> None:
    """Aria's handicap cuts her stake to 0, so her Failure against the orc's Fumble moves no AP; but
    Fumble against Fumble lets the GM have both lose ½ the bid: her step up changes that."""
    request = raid(hero_points={"aria": 1})
    assert isinstance(request.setup, x.ExtendedSetup)
    aria, *others = request.setup.contestants
    table = Table(replace(request, setup=replace(request.setup, contestants=[replace(aria, edge=-3), *others])))
    everyone_attacks(table)
    table.do(GM, x.Roll(faces=[20, 20]))  # Aria (actor) and the orc both fumble
    assert table.rules.exchange.eligible == ["aria"]
    table.do(ANN, x.SpendHeroPoint(contestant="aria"))  # Failure against Fumble: she wins, the orc pays 0
    assert (table.ap("aria"), table.ap("orc")) == (15, 12)
