"""Backing out of a contest: the GM or the agent's player ends the contest being played with no outcome, so
that another can be set up with another goal, ability or consequence (docs/rules/karbon.md, "Setting up a
Contest")."""

from __future__ import annotations

from clients.python.terminal.commands import commands_for, parse
from clients.python.terminal.fields import build
from protocol.common import Actor
from protocol.rulesets import karbon as k
from server.rules.karbon.describe import describe, names
from server.rules.karbon.waiting import waiting
from tests.rules.karbon.table import ANN, GM, SPECTATOR, Table, contest, scene

FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
NARRATOR = ["d8-1", "d8-2", "d10-1"]


def midway() -> Table:
    """A break marked and chosen, chips in both hands and on the narrator's stack, round 2 to roll."""
    table = Table()
    table.start(FIVE, NARRATOR, consequence=3, peril=1)
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(NARRATOR, 4)}, peril=[1])
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["r6-1"]))
    table.do(GM, k.Adjust(target="narrator_hand", delta=2, reason="chips from earlier"))
    assert table.running.track == ["X"] and table.chips("narrator") == (2, 1)
    return table


def test_the_agents_player_backs_out_and_the_contest_ends_with_no_outcome() -> None:
    table = midway()
    fortune = table.rules.fortune
    events = table.events(table.do(ANN, k.BackOut(reason="we try the roof instead")))
    assert events[0] == k.BackedOut(contest=1, by="agent", reason="we try the roof instead")
    assert table.rules.contest is None and table.rules.last_outcome is None  # no win, no loss, no tie
    assert table.rules.fortune == fortune
    # the hands go where a concluded contest's go (set aside); the trade with the reserve sticks
    assert table.hand("agent") == [] and table.hand("narrator") == []
    assert set(table.rules.ids("spent")) == {"r6-1", *FIVE[1:], *NARRATOR}
    assert "d6-1" in table.rules.ids("reserve")
    # the table waits for the GM to set up the next contest; a sudden death follows only a tie
    assert [w.doing for w in waiting(table.rules, "physical")] == ["set up the next contest or end the scene"]
    assert table.refused(ANN, k.SuddenDeath()) == "rules/not_unclear"
    table.do(GM, contest(level=2, challenge=1, consequence=1))
    assert table.rules.contest is not None and table.rules.contest.number == 2
    assert table.chips("agent") == (0, 0) and table.chips("narrator") == (0, 0) and table.running.track == []


def test_the_gm_backs_out_and_hands_return_to_the_pool_when_the_scene_says_so() -> None:
    table = Table(request=scene(hands_after="pool"))
    table.start(FIVE, NARRATOR, consequence=2)
    events = table.events(table.do(GM, k.BackOut()))
    assert events[0] == k.BackedOut(contest=1, by="narrator")
    assert set(FIVE + NARRATOR) <= set(table.rules.ids("pool"))


def test_backing_out_while_the_hands_are_still_to_be_drawn() -> None:
    table = Table()
    table.do(GM, contest())
    events = table.events(table.do(GM, k.BackOut(reason="wrong ability")))
    assert events == [k.BackedOut(contest=1, by="narrator", reason="wrong ability")]
    assert len(table.rules.ids("pool")) == 15


def test_who_may_back_out_and_when() -> None:
    table = Table()
    assert table.refused(GM, k.BackOut()) == "rules/out_of_phase"  # no contest yet
    table.start(FIVE, NARRATOR, consequence=2)
    assert table.refused(SPECTATOR, k.BackOut()) == "auth/forbidden"
    assert table.refused(Actor("bob", "player"), k.BackOut()) == "auth/not_your_seat"
    table.risk()
    table.roll({**dict.fromkeys(FIVE, 2), **dict.fromkeys(NARRATOR, 4)})
    table.do(ANN, k.Stack(side="agent", chips=5))
    assert table.refused(ANN, k.BackOut()) == "rules/choice_pending"  # the break's choice first
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    table.do(ANN, k.BackOut())


def test_the_line_people_read_names_who_backed_out() -> None:
    table = midway()
    said = describe(k.BackedOut(contest=1, by="agent", reason="the roof"), names(table.rules))
    assert said == "Vera backs out of contest 1, which ends with no outcome: the roof"
    said = describe(k.BackedOut(contest=2, by="narrator"), names(table.rules))
    assert said == "the narrator backs out of contest 2, which ends with no outcome"


def test_the_terminal_offers_backing_out_to_the_player_and_the_gm() -> None:
    for role in ("player", "gm"):
        call = parse("back_out the roof is quicker", commands_for("karbon", role))
        assert call is not None and call.spec.name == "back_out"
    assert "back_out" not in {spec.name for spec in commands_for("karbon", "spectator")}
    assert build(k.BackOut, ["the", "roof"]) == k.BackOut(reason="the roof")
