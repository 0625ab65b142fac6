"""The replay of a log as one viewer saw it: undone events marked as of the chosen version, sealed payloads
hidden from those not entitled, rewind targets, and the view at any version; re-issued invitations."""

from __future__ import annotations

import pytest

from protocol.common import AUDITOR, SPECTATOR
from protocol.events import Declare, ReissueSeat, Rewind, Undo
from protocol.rulesets import extended as x
from server.engine.replay import replay, replay_viewer
from tests.engine.table import ANN, BOB, GM, RULES, Table, duel

SECRET = "under-the-cloak-55"


def played() -> Table:
    # the exchange applies with its roll, as it does when no answer is awaited after the dice
    table = Table(duel(hero_points=0, pvp=True, hero_point_window="when_it_matters"))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action=SECRET, bid=4)))  # v3
    table.do(BOB, Declare(participant="orc", payload=x.Intent(action="swing", bid=2)))  # v4, v5 reveal
    table.do(GM, x.Roll(faces=[2, 15]))  # v6 rolled, v7 applied: the orc loses 4
    table.do(GM, Undo())  # v8 back to v5
    return table


def test_undone_events_are_marked_as_of_the_chosen_version() -> None:
    table = played()
    seats = table.contest.created.seats
    head = replay(RULES, table.log, replay_viewer("gm", seats), None)
    assert head.head == head.at == 8
    assert [e.version for e in head.entries if e.undone] == [6, 7]
    assert head.view["rules"]["contestants"][1]["ap"] == 12  # the undone exchange does not count
    before_undo = replay(RULES, table.log, replay_viewer("gm", seats), 7)
    assert [e.version for e in before_undo.entries if e.undone] == []
    assert before_undo.at == 7 and before_undo.view["rules"]["contestants"][1]["ap"] == 8
    # clamped to the log
    assert replay(RULES, table.log, replay_viewer("gm", seats), 99).at == 8
    assert replay(RULES, table.log, replay_viewer("gm", seats), 0).at == 1


def test_a_sealed_declaration_is_a_commitment_for_everyone_but_its_author_and_the_gm() -> None:
    table = played()
    seats = table.contest.created.seats
    for name, sees in [("gm", True), ("ann", True), ("bob", False), (SPECTATOR, False)]:
        shown = replay(RULES, table.log, replay_viewer(name, seats), 3)
        line = next(e for e in shown.entries if e.version == 3)
        assert (SECRET in line.text) is sees, name
        assert line.sealed is not sees, name
        seal = shown.view["seal"]["declared"][0]
        assert (seal["payload"] is not None) is sees, name
    with pytest.raises(ValueError):
        replay_viewer("nobody", seats)


def test_rewind_targets_are_the_effective_batch_ends_before_the_head() -> None:
    table = played()
    table.do(GM, x.Roll(faces=[2, 15]))  # v9, v10
    shown = replay(RULES, table.log, replay_viewer("gm", table.contest.created.seats), None)
    targets = [e.version for e in shown.entries if e.rewind_to]
    assert targets == [2, 3, 5]  # the undone 6-7 are not among them; 10 is the head
    table.do(GM, Rewind(to_version=5))
    assert table.refused(GM, Rewind(to_version=10)) == "undo/bad_version"


def test_reissuing_an_invitation_counts_generations_and_only_the_gm_may() -> None:
    table = played()
    assert table.contest.generation("bob") == 0
    table.do(GM, ReissueSeat(seat="bob"))
    table.do(GM, ReissueSeat(seat="bob"))
    table.do(GM, ReissueSeat(seat=SPECTATOR))
    table.do(GM, ReissueSeat(seat=AUDITOR))
    assert [table.contest.generation(s) for s in ("bob", SPECTATOR, AUDITOR, "ann")] == [2, 1, 1, 0]
    assert table.refused(ANN, ReissueSeat(seat="bob")) == "auth/forbidden"
    assert table.refused(GM, ReissueSeat(seat="gm")) == "contest/no_such_seat"
    assert table.refused(GM, ReissueSeat(seat="carol")) == "contest/no_such_seat"
    # a re-issue is not undone with the game
    table.do(GM, Undo())
    assert table.contest.generation("bob") == 2
