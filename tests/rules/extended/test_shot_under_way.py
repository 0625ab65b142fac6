"""The parting shot under way in the view (seed 000 §5.3.4; RULES.md §1): once the victor takes its shot, every
viewer is told who shoots at whom until the shot's exchange is applied, so no page has to guess the second die
from the order. Group contests at the pure table with physical dice (Aria 15, Bran 12, orc 12, wolf 10,
shaman 8)."""

from __future__ import annotations

from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.view import view
from tests.engine.table import ANN, GM, Table
from tests.rules.extended.group import attack, declare, raid

VIEWERS = [
    Viewer("gm", "gm"),
    Viewer("ann", "player", frozenset({"aria"})),
    Viewer("bob", "player", frozenset({"bran"})),
    Viewer("~spectator", "spectator"),
]


def seen(table: Table) -> list[x.ExtendedView]:
    return [view(table.rules, viewer) for viewer in VIEWERS]


def test_a_defender_who_wins_shoots_before_its_own_turn() -> None:
    table = Table(raid())
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
    # the orc's 15 fails (TN 12), Aria's 5 succeeds (TN 15): one step, the orc pays its own bid, 12 → 0
    table.do(GM, x.Roll(faces=[15, 5]))
    table.stand()
    assert all(v.parting_shots == {"aria": "orc"} and v.shot_under_way is None for v in seen(table))
    table.do(ANN, x.PartingShot(contestant="aria", bid=4, action="a last cut"))
    for v in seen(table):
        # Aria has not acted this round, and her declared target is the wolf: the shot is still at the orc
        assert v.shot_under_way == x.ShotUnderWay(shooter="aria", target="orc", bid=4, action="a last cut")
        assert v.next_actor == "aria" and v.parting_shots == {} and "aria" not in v.acted
    table.do(GM, x.Roll(faces=[5, 15]))  # the shot lands: the orc loses 1 × 4 more
    table.stand()
    assert table.ap("orc") == -4
    for v in seen(table):
        assert v.shot_under_way is None
        assert v.next_actor == "aria"  # now her own turn, at the wolf


def test_a_victor_with_targets_left_shoots_at_the_one_it_defeated() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": x.Intent(action="sweeps", bid=12, targets=["orc", "wolf"]),
            "bran": attack("wolf"),
            "orc": attack("aria"),
            "wolf": attack("bran"),
            "shaman": attack("bran"),
        },
    )
    # Aria's 5 succeeds (TN 15), the orc's 15 fails (TN 12): it loses 12 and is out; the wolf is still to come
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(ANN, x.PartingShot(contestant="aria", bid=2))
    for v in seen(table):
        assert v.shot_under_way == x.ShotUnderWay(shooter="aria", target="orc", bid=2)
        assert v.targets_left == ["wolf"] and v.next_actor == "aria"
    table.do(GM, x.Roll(faces=[5, 15]))
    assert table.rules.exchange.defender == "orc"
    for v in seen(table):  # rolled, not yet applied: still under way
        assert v.shot_under_way is not None and v.exchange is not None and v.exchange.parting_shot
    table.stand()
    assert table.ap("orc") == -2
    for v in seen(table):
        assert v.shot_under_way is None and v.targets_left == ["wolf"] and v.next_actor == "aria"
