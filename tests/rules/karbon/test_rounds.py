"""A round of Karbon, die by die: hits, misses, turncoats, chips, ties, openings, risk and peril."""

from __future__ import annotations

import pytest

from protocol.rulesets import karbon as k
from server.rules.karbon.dice import result
from tests.rules.karbon.table import ANN, GM, Table


@pytest.mark.parametrize(
    ("face", "counts_as"),
    [(1, "hit"), (2, "hit"), (3, "hit"), (4, "miss"), (5, "miss"), (6, "turncoat"), (7, "turncoat"), (10, "turncoat")],
)
def test_each_face_counts_as_the_seed_says(face: int, counts_as: str) -> None:
    assert result(face) == counts_as


def rolled(events: list[object]) -> k.RoundRolled:
    return next(e for e in events if isinstance(e, k.RoundRolled))


def test_the_winner_earns_chips_equal_to_its_hits_and_alone_stacks() -> None:
    table = Table()
    table.start(["d6-1", "d6-2", "d8-1"], ["d10-1", "d10-2"])
    table.risk()
    events = table.roll({"d6-1": 1, "d6-2": 3, "d8-1": 5, "d10-1": 2, "d10-2": 4})
    assert rolled(events).winner == "agent"
    assert (rolled(events).agent_hits, rolled(events).narrator_hits) == (2, 1)
    assert table.chips("agent") == (2, 0)
    assert table.chips("narrator") == (0, 0)  # the loser earns nothing
    assert table.running.stacking == ["agent"]
    table.do(ANN, k.Stack(side="agent", chips=2))
    assert table.chips("agent") == (0, 2)
    # the agent's hand is empty of chips: its test ends, and with it the round
    assert table.running.round == 2 and not table.running.rolled


def test_a_tie_in_hits_gives_both_sides_their_own_hits_and_both_stack() -> None:
    table = Table()
    table.start(["d6-1", "d6-2", "d6-3"], ["d8-1", "d8-2", "d8-3"])
    table.risk()
    events = table.roll({"d6-1": 1, "d6-2": 2, "d6-3": 4, "d8-1": 3, "d8-2": 3, "d8-3": 5})
    assert rolled(events).winner is None
    assert table.chips("agent") == (2, 0) and table.chips("narrator") == (2, 0)
    assert sorted(table.running.stacking) == ["agent", "narrator"]
    table.do(GM, k.Stack(side="narrator", chips=1))
    table.do(GM, k.EndTest(side="narrator"))
    assert table.running.round == 1  # the agent has not finished its test
    table.do(ANN, k.Stack(side="agent", chips=2))
    assert table.chips("narrator") == (1, 1) and table.chips("agent") == (0, 2)
    assert table.running.round == 2


def test_most_turncoats_offers_an_opening_and_surrenders_those_dice() -> None:
    table = Table()
    table.start(["d6-1", "d6-2", "d8-1"], ["d8-2", "d10-1", "d10-2"])
    table.risk()
    # the narrator rolls two turncoats (d8-2: 6, d10-2: 9) against the agent's one (d8-1: 8)
    events = table.roll({"d6-1": 1, "d6-2": 4, "d8-1": 8, "d8-2": 6, "d10-1": 3, "d10-2": 9})
    assert rolled(events).opening == "narrator"
    moved = [e for e in events if isinstance(e, k.DiceMoved)]
    assert moved == [k.DiceMoved(dice=["d8-2", "d10-2"], to="agent", why="an opening")]
    assert table.hand("agent") == ["d6-1", "d6-2", "d8-1", "d8-2", "d10-2"]
    assert table.hand("narrator") == ["d10-1"]
    # the agent's own turncoat stays in its hand: only the side offering the opening surrenders
    assert rolled(events).winner is None  # one hit each


def test_a_tie_in_turncoats_is_no_opening() -> None:
    table = Table()
    table.start(["d6-1", "d8-1"], ["d6-2", "d8-2"])
    table.risk()
    events = table.roll({"d6-1": 6, "d8-1": 1, "d6-2": 6, "d8-2": 5})
    assert rolled(events).opening is None
    assert not [e for e in events if isinstance(e, k.DiceMoved)]
    assert table.hand("agent") == ["d6-1", "d8-1"] and table.hand("narrator") == ["d6-2", "d8-2"]


def test_the_risk_is_sealed_until_declared_and_the_roll_waits_for_it() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"])
    assert table.refused(GM, k.Roll(faces={"d6-1": 1, "d6-2": 1})) == "rules/out_of_phase"
    table.risk(all_in=True)
    assert table.running.all_in is True


@pytest.mark.parametrize(
    ("risk", "drawn", "narrator_chips"),
    [
        ([1, 2, 3], ["d10-1", "d10-2", "d10-3"], 0),  # three hits: three dice from the pool
        ([2, 5, 8], ["d8-5"], 2),  # a hit, a miss and a turncoat
        ([4, 5, 6], [], 3),  # no hit: three chips for the narrator
    ],
)
def test_all_on_the_line_rolls_three_d8(risk: list[int], drawn: list[str], narrator_chips: int) -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"])
    table.risk(all_in=True)
    pool = len(table.rules.ids("pool"))
    events = table.roll({"d6-1": 4, "d6-2": 4}, risk=risk, drawn=drawn)
    assert rolled(events).risk == risk
    assert table.hand("agent") == ["d6-1", *drawn]
    assert len(table.rules.ids("pool")) == pool - len(drawn)
    # the round itself is a tie at 0 hits; the narrator's chips come from the risk alone, in hand
    assert table.chips("narrator")[0] == narrator_chips
    assert table.chips("narrator")[1] == 0


def test_all_on_the_line_with_server_dice_draws_at_random_from_the_pool() -> None:
    from tests.rules.karbon.table import scene

    table = Table(scene(dice="server"))
    table.do(GM, k.StartContest(goal="run", ability="Athletics", level=2, challenge=2, consequence=1))
    table.risk(all_in=True)
    before = set(table.rules.ids("pool"))
    events = table.events(table.do(GM, k.Roll()))
    hits = sum(1 for f in rolled(events).risk if result(f) == "hit")
    taken = [e for e in events if isinstance(e, k.DiceMoved) and e.why == "all on the line"]
    if hits:
        (move,) = taken
        assert move.roll is not None and len(move.dice) == hits
        assert set(move.dice) <= before and set(move.dice) <= set(table.hand("agent"))
    else:
        assert not taken


def test_peril_hits_go_straight_onto_the_narrators_stack_and_can_fill_it() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"], peril=2, injuries=1)
    assert table.running.peril == 3
    table.do(GM, k.Adjust(target="narrator_stack", delta=3, reason="earlier peril"))
    table.risk()
    # peril 1, 3 hit; 7 does nothing: two chips onto a stack of three makes five — a glitch
    events = table.roll({"d6-1": 4, "d6-2": 4}, peril=[1, 3, 7])
    assert k.StackPaidOut(side="narrator", payout="glitch") in events
    assert table.chips("narrator") == (0, 0)
    assert table.running.track == ["O"]
    assert [w.payout for w in table.running.waiting] == ["glitch"]


def test_peril_chips_beyond_five_start_the_next_stack() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"], peril=2)
    table.do(GM, k.Adjust(target="narrator_stack", delta=4, reason="earlier peril"))
    table.risk()
    table.roll({"d6-1": 4, "d6-2": 4}, peril=[2, 2])
    assert table.chips("narrator") == (0, 1)
    assert table.running.track == ["O"]


def test_peril_misses_and_turncoats_do_nothing() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"], peril=2)
    table.risk()
    table.roll({"d6-1": 4, "d6-2": 4}, peril=[4, 8])
    assert table.chips("narrator") == (0, 0)


def test_physical_faces_must_match_the_dice_on_the_table() -> None:
    table = Table()
    table.start(["d6-1"], ["d10-1"], peril=1)
    table.risk()
    assert table.refused(GM, k.Roll(faces={"d6-1": 1}, peril=[1])) == "dice/bad_face"
    assert table.refused(GM, k.Roll(faces={"d6-1": 7, "d10-1": 1}, peril=[1])) == "dice/bad_face"
    assert table.refused(GM, k.Roll(faces={"d6-1": 1, "d10-1": 10})) == "dice/bad_face"
    assert table.refused(GM, k.Roll(faces={"d6-1": 1, "d10-1": 10}, peril=[1], risk=[1, 1, 1])) == "dice/bad_face"
    assert table.refused(ANN, k.Roll(faces={"d6-1": 1, "d10-1": 10}, peril=[1])) == "dice/typed_by_gm"


def test_server_dice_refuse_typed_faces_and_record_every_face() -> None:
    from tests.rules.karbon.table import scene

    table = Table(scene(dice="server"))
    table.do(GM, k.StartContest(goal="run", ability="Athletics", level=3, challenge=2, consequence=1, peril=1))
    table.risk()
    assert table.refused(GM, k.Roll(faces={"d6-1": 1})) == "dice/wrong_mode"
    event = rolled(table.events(table.do(ANN, k.Roll())))
    assert event.roll.source == "server"
    assert [d.face for d in event.agent + event.narrator] + event.peril == event.roll.faces
    assert len(event.agent) == 3 and len(event.narrator) == 2 and len(event.peril) == 1


def test_once_the_track_is_full_no_more_chips_go_onto_a_stack() -> None:
    """A one-slot track: twelve chips are more than it has room for (one glitch, then four on the next
    stack), so stacking them is refused; nine pay out one glitch, not two, and start the next stack."""
    table = Table()
    table.start(["d6-1"], ["d6-2", "d6-3", "d8-1"], consequence=1)
    table.risk()
    table.roll({"d6-1": 5, "d6-2": 1, "d6-3": 2, "d8-1": 3})  # the narrator wins with three hits
    table.do(GM, k.Adjust(target="narrator_hand", delta=9, reason="a correction"))
    assert table.chips("narrator") == (12, 0)
    assert table.refused(GM, k.Stack(side="narrator", chips=12)) == "rules/track_full"
    events = table.events(table.do(GM, k.Stack(side="narrator", chips=9)))
    assert [e for e in events if isinstance(e, k.StackPaidOut)] == [k.StackPaidOut(side="narrator", payout="glitch")]
    assert table.running.track == ["O"]
    assert table.chips("narrator") == (3, 4)  # five paid out, four start the next stack, three stay in hand
