"""What an extended contest waits for, phase by phase, as each page says it: the sealing of intents, whoever's
exchange comes next, the hero point answers, a parting shot, the GM's conclusion. Each awaited seat then
plays the command the contest waits for, and the contest accepts it."""

from __future__ import annotations

from protocol.common import Actor
from protocol.events import CloseDeclarations, Conclude, Declare
from protocol.rulesets import extended as x
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table, duel
from tests.rules.extended.group import attack, declare, raid
from tests.rules.waiting import awaited, line, named

CAT = Actor("cat", "player")
ANSWER = "let the roll stand or spend a hero point"


def a_duel(**options: object) -> Table:
    """Ann's Aria against Bob's orc, server dice, each with a hero point; the seats named Ann and Bob."""
    return Table(named(duel(dice="server", pvp=True, **options)))  # type: ignore[arg-type]


def test_a_duel_waits_for_each_seat_in_turn_and_every_page_reads_it_alike() -> None:
    table = a_duel()
    for actor in (GM, ANN, BOB, SPECTATOR):
        assert awaited(table, actor) == [(("ann", "bob"), "Ann and Bob", "seal an intent")]
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    assert awaited(table) == [(("bob",), "Bob", "seal an intent")]  # who, never what Ann sealed
    table.do(BOB, Declare(participant="orc", payload=x.Intent(action="parry", bid=3)))
    assert awaited(table) == [(("ann",), "Ann", "roll exchange 1")]
    table.do(ANN, x.Roll())
    assert awaited(table) == [(("ann", "bob"), "Ann and Bob", ANSWER)]  # always: every PC answers
    table.do(BOB, x.PassHeroPoint(contestant="orc"))
    assert line(table) == [f"Ann to {ANSWER}"]
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert awaited(table) == [(("bob",), "Bob", "roll exchange 2")]
    table.do(BOB, x.Roll())
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    table.do(BOB, x.PassHeroPoint(contestant="orc"))
    assert awaited(table) == [(("ann", "bob"), "Ann and Bob", "seal an intent")]  # round 2


def test_a_decided_contest_waits_for_the_gm_to_conclude_it_and_a_concluded_one_for_nothing() -> None:
    table = a_duel()
    table.do(GM, x.Adjust(contestant="orc", delta=-40, reason="a landslide"))
    assert table.rules.phase == "decided"
    assert awaited(table, BOB) == [(("gm",), "the GM", "conclude the contest")]
    table.do(GM, Conclude())
    assert awaited(table) == [] and awaited(table, SPECTATOR) == []


def test_the_gm_runs_its_own_contestant_and_types_physical_dice() -> None:
    table = Table(named(duel(dice="physical")))  # the orc is the GM's
    assert awaited(table) == [(("ann", "gm"), "Ann and the GM", "seal an intent")]
    table.do(GM, Declare(participant="orc", payload=x.Intent(action="roar")))
    assert awaited(table, ANN) == [(("ann",), "Ann", "seal an intent")]
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge")))
    # physical dice: the GM types in the faces, Aria's exchange or not
    assert awaited(table) == [(("gm",), "the GM", "roll exchange 1")]
    assert table.refused(ANN, x.Roll(faces=[5, 15])) == "dice/typed_by_gm"
    table.do(GM, x.Roll(faces=[5, 15]))
    assert awaited(table, ANN)[0][:2] == (("ann",), "Ann")  # her answer: the GM's orc has none to give


def test_players_who_type_their_faces_roll_their_own_exchanges() -> None:
    table = Table(named(duel(dice="physical", players_type_faces=True)))
    table.do(GM, Declare(participant="orc", payload=x.Intent(action="roar")))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge")))
    assert awaited(table) == [(("ann",), "Ann", "roll exchange 1")]
    table.do(ANN, x.Roll(faces=[5, 15]))


def test_with_when_it_matters_only_the_gm_and_the_awaited_player_are_told_whom_the_roll_waits_for() -> None:
    table = a_duel(hero_point_window="when_it_matters")
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    table.do(BOB, Declare(participant="orc", payload=x.Intent(action="parry", bid=3)))
    table.do(ANN, x.Roll())
    waiting = table.rules.exchange.waiting
    assert waiting, "the seeded dice leave a hero point that matters"
    told = {"aria": ANN, "orc": BOB}
    for contestant, seat in told.items():
        mine = [w for w in awaited(table, seat) if w[2] == ANSWER]
        expected = (seat.principal,) if contestant in waiting else ()
        assert [w[0] for w in mine] == [expected], f"{seat.principal}: {mine}"
    assert {w[0] for w in awaited(table) if w[2] == ANSWER} == {
        tuple(s.principal for c, s in told.items() if c in waiting)
    }
    assert awaited(table, SPECTATOR) == [((), "someone", ANSWER)]


def test_a_group_contest_waits_for_the_victor_s_parting_shot_and_for_an_actor_with_no_target_left() -> None:
    table = Table(named(raid()))
    declare(
        table,
        {
            "aria": attack("wolf"),
            "bran": attack("wolf"),
            "orc": attack("aria", 12),
            "wolf": attack("bran"),
            "shaman": attack("bran"),
        },
    )
    table.do(GM, x.SetOrder(order=["orc", "aria", "bran", "wolf", "shaman"]))
    table.do(GM, x.Roll(faces=[15, 5]))  # Aria, defending, beats the orc 12 → 0
    table.stand()
    assert awaited(table) == [
        (("ann",), "Ann", "take a parting shot at Orc or let it pass"),
        (("gm",), "the GM", "roll exchange 2"),  # Aria's own turn: physical dice, the GM types them
    ]
    table.do(ANN, x.PartingShot(contestant="aria", bid=4))
    assert awaited(table, BOB) == [(("gm",), "the GM", "roll the parting shot at Orc")]
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(GM, x.Adjust(contestant="wolf", delta=-30, reason="the wolf flees"))  # both heroes' target is gone
    assert awaited(table) == [(("ann",), "Ann", "pass the turn (no target left to engage)")]
    table.do(ANN, x.PassTurn(contestant="aria"))
    assert awaited(table) == [(("bob",), "Bob", "pass the turn (no target left to engage)")]


def test_a_group_round_waits_for_the_gm_to_order_it_before_anyone_is_told_to_roll() -> None:
    table = Table(named(raid()))
    intents = {
        "aria": attack("wolf"),
        "bran": attack("wolf"),
        "orc": attack("aria"),
        "wolf": attack("bran"),
        "shaman": attack("bran"),
    }
    declare(table, intents)
    for actor in (GM, ANN, BOB, SPECTATOR):  # not Ann, whose Aria is first in the order as it stands
        assert awaited(table, actor) == [(("gm",), "the GM", "order round 1")]
    table.do(GM, x.OrderBy(mode="bid"))
    assert awaited(table)[-1][2] == "roll exchange 1"
    for _ in range(len(intents)):  # the GM types every exchange's faces: no knock-out at these bids
        table.do(GM, x.Roll(faces=[5, 15]))
        table.stand()
    assert table.rules.round == 2
    assert awaited(table) == [(("ann", "bob", "gm"), "Ann, Bob and the GM", "seal an intent")]
    declare(table, intents)
    assert awaited(table) == [(("gm",), "the GM", "order round 2")]
    table.do(GM, x.SetOrder(order=table.rules.order))  # "Keep this order"
    assert awaited(table)[-1][2] == "roll exchange 6"


def test_an_intent_the_window_closed_on_waits_for_its_actor_to_pass_and_says_why() -> None:
    table = Table(named(raid()))
    declare(table, {"aria": attack("wolf"), "bran": attack("wolf"), "orc": attack("aria"), "wolf": attack("bran")})
    table.do(GM, CloseDeclarations())  # the shaman's intent was never sealed: the default, singling out nobody
    table.do(GM, x.SetOrder(order=["shaman", "aria", "bran", "orc", "wolf"]))
    passing = "pass the turn (Shaman's intent was not sealed in time: it singles out nobody)"
    assert awaited(table) == [(("gm",), "the GM", passing)]
    table.do(GM, x.PassTurn(contestant="shaman"))
    assert awaited(table)[-1][2] == "roll exchange 1"
