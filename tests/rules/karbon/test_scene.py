"""A scene: its contests, the pool they share, the conclusion, sudden death and Fortune."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.events import Undo
from protocol.rulesets import karbon as k
from server.rules.karbon import dice
from tests.rules.karbon.table import ANN, GM, Table, scene

FIVE = ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"]
D8 = ["d8-1", "d8-2", "d8-3", "d8-4", "d8-5"]


def every_die(table: Table) -> dict[str, int]:
    return {d.id: d.sides for d in table.rules.dice.values()}


def break_round(table: Table, agent: list[str], narrator: list[str]) -> None:
    """The agent rolls only hits, the narrator none; the agent stacks five and takes a footing discard."""
    table.risk()
    table.roll({**dict.fromkeys(agent, 1), **dict.fromkeys(narrator, 5)})
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))


def glitch_round(table: Table, agent: list[str], narrator: list[str]) -> None:
    table.risk()
    table.roll({**dict.fromkeys(agent, 5), **dict.fromkeys(narrator, 1)})
    table.do(GM, k.Stack(side="narrator", chips=5))
    table.do(ANN, k.ChooseGlitch(choice="plans"))
    table.do(GM, k.NarratorOption(option="peril"))


def test_the_scene_starts_with_the_seeds_twenty_dice() -> None:
    table = Table()
    pool = table.rules.at("pool")
    reserve = table.rules.at("reserve")
    assert [d.sides for d in pool].count(6) == 7
    assert [d.sides for d in pool].count(8) == 5
    assert [d.sides for d in pool].count(10) == 3
    assert len(pool) == 15 and [d.sides for d in reserve] == [6] * 5
    assert len(set(every_die(table))) == 20


def test_a_full_track_of_more_wins_is_a_win_and_the_hands_are_set_aside() -> None:
    table = Table()
    table.start(FIVE, ["d8-1"], consequence=1)
    break_round(table, FIVE, ["d8-1"])
    outcome = table.rules.last_outcome
    assert outcome is not None and (outcome.outcome, outcome.wins, outcome.losses) == ("won", 1, 0)
    assert table.rules.contest is None
    assert table.rules.ids("spent") == ["d6-1", "d6-2", "d6-3", "d6-4", "d6-5", "d8-1"]


def test_a_full_track_of_more_losses_is_a_loss() -> None:
    table = Table()
    table.start(["d8-1"], FIVE, consequence=1)
    glitch_round(table, ["d8-1"], FIVE)
    outcome = table.rules.last_outcome
    assert outcome is not None and outcome.outcome == "lost"


def tie(table: Table) -> None:
    """A two-win contest that ends X O: unclear."""
    table.start(FIVE, D8, consequence=2)
    break_round(table, FIVE, D8)
    glitch_round(table, FIVE, D8)


def test_an_even_track_is_unclear_and_the_player_may_call_sudden_death() -> None:
    table = Table()
    tie(table)
    outcome = table.rules.last_outcome
    assert outcome is not None and outcome.outcome == "unclear"
    previous = table.rules.previous
    assert previous is not None and previous.peril == 1  # the glitch added a peril die
    assert table.refused(GM, k.SuddenDeath()) == "auth/not_your_seat"
    table.do(ANN, k.SuddenDeath())
    running = table.running
    assert running.sudden_death and running.consequence == 1
    assert (running.goal, running.level, running.challenge, running.peril) == (
        previous.goal,
        previous.level,
        previous.challenge,
        previous.peril,
    )
    # a sudden death is a contest of its own: its hands come from what the scene's pool holds now
    pool = table.rules.ids("pool")
    assert pool == ["d6-6", "d6-7", "d10-1", "d10-2", "d10-3"]
    table.do(GM, k.DrawHands(agent=["d6-6", "d6-7", "d10-1", "d10-2", "d10-3"], narrator=[]))
    table.risk()
    table.roll(dict.fromkeys(pool, 1), peril=[6])
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="security"))
    outcome = table.rules.last_outcome
    assert outcome is not None and outcome.outcome == "won" and outcome.contest == 2


def test_sudden_death_follows_only_a_tie() -> None:
    table = Table()
    assert table.refused(ANN, k.SuddenDeath()) == "rules/not_unclear"
    table.start(FIVE, ["d8-1"], consequence=1)
    break_round(table, FIVE, ["d8-1"])
    assert table.refused(ANN, k.SuddenDeath()) == "rules/not_unclear"


def test_the_second_contest_of_a_scene_starts_from_the_first_ones_pool() -> None:
    table = Table()
    table.start(FIVE, ["d8-1"], consequence=1)
    table.risk(all_in=True)
    table.roll({**dict.fromkeys(FIVE, 1), "d8-1": 5}, risk=[1, 5, 5], drawn=["d10-3"])
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="advantage", dice=["d6-1"], reserve=["r6-2"]))
    assert table.rules.last_outcome is not None
    after_first = table.rules.ids("pool")
    assert after_first == ["d6-6", "d6-7", "d8-2", "d8-3", "d8-4", "d8-5", "d10-1", "d10-2"]
    assert table.rules.ids("reserve") == ["d6-1", "r6-1", "r6-3", "r6-4", "r6-5"]  # the trade sticks
    table.do(GM, k.StartContest(goal="open the safe", ability="Tinker", level=9, challenge=2, consequence=1))
    assert table.refused(GM, k.DrawHands(agent=["d6-1"], narrator=[])) == "rules/wrong_count"
    assert table.refused(GM, k.DrawHands(agent=[*after_first[:7], "d6-1"], narrator=[])) == "rules/wrong_place"
    # level 9 from a pool of eight: the agent takes all eight, the narrator nothing
    table.do(GM, k.DrawHands(agent=after_first, narrator=[]))
    assert table.hand("agent") == after_first and table.hand("narrator") == []
    assert table.rules.ids("pool") == []
    assert every_die(table) == every_die(Table())  # nothing created, nothing lost


def test_hands_return_to_the_pool_when_the_scene_says_so() -> None:
    table = Table(scene(hands_after="pool"))
    table.start(FIVE, ["d8-1"], consequence=1)
    break_round(table, FIVE, ["d8-1"])
    assert len(table.rules.ids("pool")) == 15


def test_server_dice_draw_hands_at_random_and_record_the_draw() -> None:
    table = Table(scene(dice="server"))
    events = table.events(table.do(GM, k.StartContest(goal="g", ability="a", level=3, challenge=4, consequence=1)))
    drawn = next(e for e in events if isinstance(e, k.HandsDrawn))
    assert drawn.roll is not None and drawn.roll.sides == [15, 14, 13, 12, 11, 10, 9]
    assert len(drawn.agent) == 3 and len(drawn.narrator) == 4
    assert len(set(drawn.agent + drawn.narrator)) == 7
    assert sorted(table.hand("agent")) == sorted(drawn.agent)
    assert len(table.rules.ids("pool")) == 8
    assert table.refused(GM, k.DrawHands(agent=[], narrator=[])) == "rules/out_of_phase"


def test_the_choose_setting_names_hands_even_with_server_dice() -> None:
    table = Table(scene(dice="server", draw="choose"))
    table.do(GM, k.StartContest(goal="g", ability="a", level=2, challenge=1, consequence=1))
    assert table.running.drawn is False
    table.do(GM, k.DrawHands(agent=["d10-1", "d10-2"], narrator=["d6-1"]))
    assert table.hand("agent") == ["d10-1", "d10-2"]


def test_random_draws_refuse_named_dice() -> None:
    table = Table(scene(dice="server"))
    table.do(GM, k.StartContest(goal="g", ability="a", level=2, challenge=1, consequence=1))
    assert table.refused(GM, k.ChangeChallenge(challenge=2, dice=["d6-1"])) == "rules/draws_random"
    table.do(GM, k.ChangeChallenge(challenge=3))
    assert len(table.hand("narrator")) == 3


def test_the_challenge_changes_mid_contest_with_real_dice() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2", "d6-3"])
    table.do(GM, k.ChangeChallenge(challenge=3, dice=["d10-1"], reason="reinforcements"))
    assert table.running.challenge == 3 and table.hand("narrator") == ["d6-2", "d6-3", "d10-1"]
    table.do(GM, k.ChangeChallenge(challenge=1, dice=["d6-2", "d10-1"]))
    assert table.hand("narrator") == ["d6-3"]
    assert "d10-1" in table.rules.ids("pool")


def test_the_peril_changes_mid_contest() -> None:
    table = Table()
    table.start(["d6-1"], ["d6-2"], peril=1)
    table.do(GM, k.ChangePeril(peril=3, reason="the building burns"))
    assert table.running.peril == 3
    assert table.refused(ANN, k.ChangePeril(peril=0)) == "auth/forbidden"


@pytest.mark.parametrize(
    ("fortune", "win", "after", "aftermath"),
    [
        (0, True, 3, False),  # reclaimed, and one more on a win
        (0, False, 2, True),  # reclaimed; a loss costs a Blackout or a Moment of Madness
        (1, True, 1, False),  # Fortune left: nothing happens
        (1, False, 1, False),
    ],
)
def test_reaching_the_end_at_zero_fortune(fortune: int, win: bool, after: int, aftermath: bool) -> None:
    table = Table(scene(fortune=2))
    if fortune != 2:
        table.do(GM, k.Adjust(target="fortune", delta=fortune - 2, reason="spent on a push"))
    if win:
        table.start(FIVE, ["d8-1"], consequence=1)
        break_round(table, FIVE, ["d8-1"])
    else:
        table.start(["d8-1"], FIVE, consequence=1)
        glitch_round(table, ["d8-1"], FIVE)
    assert table.rules.fortune == after
    assert table.rules.aftermath_due is aftermath
    if aftermath:
        assert table.refused(GM, k.StartContest(goal="g", ability="a", level=1, challenge=1, consequence=1)) == (
            "rules/out_of_phase"
        )
        table.do(ANN, k.ChooseAftermath(aftermath="madness"))
        assert table.rules.aftermaths == ["madness"]
    assert table.refused(ANN, k.ChooseAftermath(aftermath="blackout")) == "rules/out_of_phase"


@pytest.mark.parametrize(
    ("guide", "challenge"),
    [
        (k.ChallengeGuide(difficulty="easy"), 1),
        (k.ChallengeGuide(difficulty="moderate"), 2),
        (k.ChallengeGuide(difficulty="difficult"), 3),
        (k.ChallengeGuide(difficulty="easy", profile=True), 2),
        (k.ChallengeGuide(difficulty="easy", profile=True, element=True), 3),
        (k.ChallengeGuide(difficulty="easy", opposition="several"), 2),
        (k.ChallengeGuide(difficulty="easy", opposition="many"), 3),
        (k.ChallengeGuide(difficulty="moderate", factors=2), 4),
        (k.ChallengeGuide(difficulty="difficult", profile=True, element=True, opposition="many", factors=1), 8),
    ],
)
def test_the_challenge_guide(guide: k.ChallengeGuide, challenge: int) -> None:
    assert dice.challenge(guide) == challenge
    table = Table()
    table.do(GM, k.StartContest(goal="g", ability="a", level=1, challenge_guide=guide, consequence=1))
    assert table.running.challenge == challenge


@pytest.mark.parametrize(
    ("guide", "wins"),
    [
        (k.ConsequenceGuide(scope="minor"), 1),
        (k.ConsequenceGuide(scope="moderate"), 2),
        (k.ConsequenceGuide(scope="major"), 3),
        (k.ConsequenceGuide(scope="major", major_extra=2), 5),
        (k.ConsequenceGuide(scope="minor", profiles=1, assets=2), 4),
        (k.ConsequenceGuide(scope="moderate", fictional=2), 4),
    ],
)
def test_the_consequence_guide(guide: k.ConsequenceGuide, wins: int) -> None:
    assert dice.consequence(guide) == wins


@pytest.mark.parametrize(
    ("stats", "code"),
    [
        ({"challenge": 2, "challenge_guide": k.ChallengeGuide(difficulty="easy")}, "rules/bad_stats"),
        ({"consequence": None}, "rules/bad_stats"),
        ({"peril": 3}, "rules/bad_stats"),
        ({"challenge": 0}, "rules/bad_stats"),
        ({"consequence": 0}, "rules/bad_stats"),
        ({"consequence_guide": k.ConsequenceGuide(scope="minor", fictional=3), "consequence": None}, "rules/bad_stats"),
    ],
)
def test_bad_stats_are_refused(stats: dict[str, Any], code: str) -> None:
    table = Table()
    base: dict[str, Any] = {"goal": "g", "ability": "a", "level": 1, "challenge": 1, "consequence": 1}
    base.update(stats)
    assert table.refused(GM, k.StartContest(**base)) == code


def test_injuries_add_to_the_peril() -> None:
    table = Table()
    table.do(GM, k.StartContest(goal="g", ability="a", level=1, challenge=1, consequence=1, peril=1, injuries=2))
    assert table.running.peril == 3


def test_undo_puts_every_die_and_chip_back() -> None:
    table = Table()
    table.start(["d6-1", "d6-2"], ["d8-1", "d8-2"])
    table.risk()
    before = table.contest.rules
    table.roll({"d6-1": 6, "d6-2": 1, "d8-1": 1, "d8-2": 1})
    assert table.hand("narrator") == ["d6-1", "d8-1", "d8-2"]
    table.do(GM, Undo())
    assert table.contest.rules == before
