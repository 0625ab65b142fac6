"""Three behaviours of the duel that the group contest's work corrected."""

from __future__ import annotations

from protocol.events import Declare
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.view import view
from tests.engine.table import ANN, GM, Table, duel


def test_when_both_sides_end_at_0_or_less_each_has_its_own_outcome_in_the_view() -> None:
    table = Table(duel(hero_points=0))
    table.do(GM, x.Adjust(contestant="aria", delta=-30, reason="the bridge gives way"))  # Aria at -15
    table.do(GM, x.Adjust(contestant="orc", delta=-40, reason="the orc falls too"))  # the orc at -28
    seen = view(table.rules, Viewer("spectator", "spectator")).outcome
    assert seen is not None and seen.winner is None and seen.level == "Both defeated"
    own = {o.contestant: (o.result, o.level, o.consequence, o.by_ap) for o in seen.outcomes}
    assert own == {"aria": ("defeat", "Minor", "Impaired", -15), "orc": ("defeat", "Major", "Injured", -28)}
    assert {s.side: s.level for s in seen.sides} == {"aria": "Minor", "orc": "Major"}


def test_a_stake_cut_to_0_by_a_handicap_is_described_as_such() -> None:
    request = duel(hero_points=0)
    aria = request.setup.contestants[0]
    request.setup.contestants[0] = x.Contestant(
        id=aria.id, name=aria.name, ability=aria.ability, rating=aria.rating, edge=-4
    )
    table = Table(request)
    table.declare(x.Intent(bid=3), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria wins one step, but her handicap ^-4 leaves a stake of 0
    table.stand()
    applied = next(e.event for e in reversed(table.log) if isinstance(e.event, x.ExchangeApplied))
    assert applied.lost == 0 and table.ap("orc") == 12
    assert "handicap cuts the stake to 0" in applied.result and "asymmetrical" not in applied.result


def test_declarations_survive_an_adjustment_that_decided_then_resumed_the_contest() -> None:
    table = Table(duel(hero_points=0))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=7)))
    table.do(GM, x.Adjust(contestant="orc", delta=-12, reason="the orc trips"))
    assert table.rules.phase == "decided"
    table.do(GM, x.Adjust(contestant="orc", delta=5, reason="no, it catches the rail"))
    assert table.rules.phase == "declaring" and table.rules.round == 1 and table.rules.outcome is None
    table.do(GM, Declare(participant="orc", payload=x.Intent(bid=2)))  # the window is the same: it reveals
    assert table.rules.phase == "ready"
    assert table.rules.intents["aria"] == x.Intent(action="lunge", bid=7)


def test_a_decision_in_mid_round_resumes_where_it_stopped() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=12), x.Intent(bid=2))
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria takes the orc to 0: decided before its response
    table.stand()
    table.do(GM, x.Adjust(contestant="orc", delta=3, reason="the orc was only winded"))
    assert table.rules.phase == "ready" and table.rules.actor == "orc" and table.rules.round == 1


def test_an_adjustment_during_a_rolled_exchange_that_decides_then_resumes_lets_the_actor_roll_again() -> None:
    table = Table(duel(hero_points=1))
    table.declare(x.Intent(bid=3), x.Intent(bid=2))
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria may still spend her hero point: the exchange waits
    table.stand()
    assert table.rules.phase == "rolled"
    table.do(GM, x.Adjust(contestant="orc", delta=-12, reason="the orc faints"))
    table.do(GM, x.Adjust(contestant="orc", delta=12, reason="it was feigning"))
    assert table.rules.phase == "ready" and table.rules.actor == "aria"
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert table.ap("orc") == 9
