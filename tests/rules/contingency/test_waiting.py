"""What a Contingency encounter waits for, phase by phase, as each page says it: the GM's scene and call for
intent, the sealed intents, each action's roll in the order of resolution (named as everyone may read it: a
face-down card by its type), a penalty with a choice, a change of action the GM rules on, the end of the round.
Each awaited seat then plays the command the encounter waits for, and the encounter accepts it."""

from __future__ import annotations

import msgspec

from protocol.common import Actor
from protocol.events import Declare
from protocol.rulesets import contingency as c
from server.rules.contingency import skill
from server.rules.contingency.order import next_action
from server.rules.contingency.waiting import END_ROUND
from tests.e2e.test_contingency import AMBUSH, FEINT, _encounter
from tests.rules.contingency.table import ANN, BOB, GM, SPECTATOR, Table
from tests.rules.waiting import Awaited, named

CAT = Actor("cat", "player")
SEATS = {"gm": GM, "ann": ANN, "bob": BOB, "cat": CAT}


def awaited(table: Table, actor: Actor = GM) -> list[Awaited]:
    return [(tuple(w.seats), w.who, w.doing) for w in table.view(actor).waiting]


def test_a_round_waits_for_the_gm_the_intents_each_roll_in_order_and_the_end_of_the_round() -> None:
    table = Table(named(_encounter("face_down")))  # Rook (Ann), Wren (Bob), Moss (Cat) against the GM's bandit
    assert awaited(table, SPECTATOR) == [(("gm",), "the GM", "set the scene and call for intent")]
    table.do(GM, c.OpenIntent())
    assert awaited(table) == [(("ann", "bob", "cat", "gm"), "Ann, Bob, Cat and the GM", "seal an intent")]
    table.do(ANN, Declare(participant="rook", payload=c.Intent(actions=[FEINT, AMBUSH])))
    table.do(BOB, Declare(participant="wren", payload=c.Intent(actions=["Strike"])))
    table.do(CAT, Declare(participant="moss", payload=c.Intent(actions=["Reposition"])))
    assert awaited(table, BOB) == [(("gm",), "the GM", "seal an intent")]
    table.do(GM, Declare(participant="bandit", payload=c.Intent(actions=["Shoot"])))
    # the first to resolve is Rook's Influence card, face down: nobody reads its name in the line
    assert awaited(table, BOB) == [(("ann",), "Ann", "roll Rook's face-down Influence action")]
    table.do(BOB, c.ChangeAction(action="wren.1", to="Defend"))
    assert awaited(table) == [
        (("gm",), "the GM", "rule on the change of Wren's face-down Combat action"),
        (("ann",), "Ann", "roll Rook's face-down Influence action"),
    ]
    table.do(GM, c.RuleOnChange(action="wren.1", allow=False))
    penalties = 0
    while (upcoming := next_action(table.state)) is not None:
        seat = next((s for s in table.contest.created.seats if upcoming.character in s.contestants), None)
        seat_id, who = (seat.id, str(seat.name)) if seat is not None else ("gm", "the GM")
        (waits,) = awaited(table, SPECTATOR)
        assert waits[:2] == ((seat_id,), who)
        assert waits[2].startswith(f"roll {table.state.fighters[upcoming.character].name}'s")
        for actor in SEATS.values():
            assert FEINT not in str(awaited(table, actor)) and AMBUSH not in str(awaited(table, actor))
        table.do(SEATS[seat_id], c.Roll(faces=[1, 4, 9]))
        rolling = table.state.rolling
        if rolling is not None:  # a second action's penalty, taken one of several ways: its player chooses
            name = f"{table.state.fighters[rolling.character].name}'s {table.state.actions[rolling.action].name}"
            assert awaited(table) == [((seat_id,), who, f"take the penalty of {name}")]
            table.do(SEATS[seat_id], c.TakePenalty(reductions=list(skill.choices(rolling.faces, rolling.penalty)[0])))
            penalties += 1
    assert penalties == 1  # Rook's Ambush, her second action this round
    assert table.state.phase == "environment"
    assert awaited(table, ANN) == [(("gm",), "the GM", END_ROUND)]
    table.do(GM, c.EndRound())
    assert awaited(table) == [(("gm",), "the GM", "set the scene and call for intent")]


def test_with_physical_dice_the_gm_types_the_faces_unless_players_may() -> None:
    request = named(_encounter("public"))
    setup = request.setup
    assert isinstance(setup, c.ContingencySetup)
    table = Table(msgspec.structs.replace(request, setup=msgspec.structs.replace(setup, players_type_faces=False)))
    table.announce(
        {
            "rook": (ANN, ["Taunt"]),
            "wren": (BOB, ["Strike"]),
            "moss": (CAT, ["Reposition"]),
            "bandit": (GM, ["Shoot"]),
        }
    )
    assert awaited(table) == [(("gm",), "the GM", "roll Rook's Taunt")]
    table.do(GM, c.Roll(faces=[4, 4, 4]))
