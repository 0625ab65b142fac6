"""Several PCs against one opposition, joining with a shared tally (§5.2.7), corrections, undo, and the
refusals of what the rules forbid."""

from __future__ import annotations

import msgspec
import pytest

from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import CreateContest, Declare, Undo
from protocol.rulesets import extended as x
from protocol.rulesets import scored as s
from tests.rules.scored.table import ANN, BOB, GM, RULES, Table, heroes


def test_two_pcs_against_one_opposition_each_keep_a_tally_and_their_own_outcome() -> None:
    table = Table()
    table.round("ogre", "aria", [13, 16])  # the Ogre's big success: 3 RP on Aria
    table.round("bors", "ogre", [14, 16])  # Bors' big success: 3 RP on the Ogre
    table.round("aria", "ogre", [5, 9])  # one each, the Ogre's higher die: 1 more on Aria (4)
    table.round("bors", "ogre", [2, 16])  # one success to none: 2 RP, the Ogre has 5
    decided = table.rules.outcome
    assert decided is not None and decided.winner == "heroes"
    results = {o.contestant: (o.opponent, o.difference, o.degree, o.victory) for o in decided.outcomes}
    assert results == {
        "aria": ("ogre", 1, 0, True),  # 5 − 4
        "bors": ("ogre", 5, 2, True),  # 5 − 0
        "ogre": ("bors", -5, 2, False),  # measured against the last PC it met
    }


def outcome_of(table: Table) -> dict[str, tuple[str, int, int, int, int, bool]]:
    decided = table.rules.outcome
    assert decided is not None
    return {
        o.contestant: (o.opponent, o.rp_against, o.rp_for, o.difference, o.degree, o.victory) for o in decided.outcomes
    }


def test_a_pc_taken_out_has_lost_though_a_teammate_wins_the_sequence() -> None:
    """§5.2: five RP against a contestant and "they lose that scored sequence", whoever wins it later."""
    table = Table()
    table.round("ogre", "aria", [13, 16])  # the Ogre's big success against a miss: degree 2, 3 RP on Aria
    table.round("ogre", "aria", [5, 16])  # one success to none: 2 more, Aria is out at 5
    assert table.out("aria") == "tally" and table.rules.outcome is None  # Bors is still in
    table.do(GM, s.PartingShot(shooter="ogre", target="aria", faces=[5, 16]))  # degree 1: 2 more on her
    table.stand()
    assert table.rp("aria") == 7
    table.round("bors", "ogre", [14, 16])  # Bors' big success: 3 RP on the Ogre
    table.round("bors", "ogre", [2, 16])  # 2 more: the Ogre is out at 5
    decided = table.rules.outcome
    assert decided is not None and (decided.winner, decided.loser) == ("heroes", "opposition")
    assert outcome_of(table) == {
        "aria": ("ogre", 7, 0, -7, 3, False),  # the Ogre beat her 7–0, its parting shot included
        "bors": ("ogre", 0, 5, 5, 2, True),
        "ogre": ("bors", 5, 0, -5, 2, False),
    }
    assert "aria: defeat of degree 3 (0–7)" in RULES.describe(decided)


def test_a_fallen_pc_is_measured_by_the_score_when_it_went_out() -> None:
    table = Table()
    table.round("bors", "ogre", [14, 16])  # 3 RP on the Ogre before Aria falls: they count for her
    table.round("ogre", "aria", [13, 16])  # 3 RP on Aria
    table.round("ogre", "aria", [5, 16])  # 2 more: out at 5, against the Ogre's 3
    table.round("bors", "ogre", [2, 16])  # 2 RP after she fell: Bors' fight, not hers
    assert outcome_of(table) == {
        "aria": ("ogre", 5, 3, -2, 0, False),
        "bors": ("ogre", 0, 5, 5, 2, True),
        "ogre": ("bors", 5, 0, -5, 2, False),
    }


def test_a_late_arrival_joins_and_shares_the_tally() -> None:
    table = Table(heroes(bors_joins_later=True))
    table.round("ogre", "aria", [13, 16])  # 3 RP on Aria
    assert table.refused(GM, s.StartRound(initiative="bors", responder="ogre")) == "rules/out_of_contest"
    assert table.refused(BOB, s.Join(contestant="bors", comrade="ogre")) == "rules/not_a_teammate"
    table.do(BOB, s.Join(contestant="bors", comrade="aria"))
    assert table.rp("bors") == 3  # the same tally: their fates are bound
    assert table.refused(BOB, s.Join(contestant="bors", comrade="aria")) == "rules/already_in"
    table.round("ogre", "bors", [12, 16])  # degree 1: 2 RP on the shared tally
    assert table.rp("aria") == table.rp("bors") == 5
    assert table.out("aria") == table.out("bors") == "tally"
    assert table.rules.outcome is not None and table.rules.outcome.winner == "opposition"


def test_a_late_arrival_shares_only_a_main_contestants_tally() -> None:
    table = Table(heroes(bors_joins_later=True))
    table.adjust("aria", 2)
    # Brin (Ann's secondary contestant), Cato (a follower who fights) and Dina (a supporter) are no comrades
    for follower in ("brin", "cato", "dina"):
        assert table.refused(BOB, s.Join(contestant="bors", comrade=follower)) == "rules/not_a_comrade"
        assert table.refused(GM, s.Join(contestant="bors", comrade=follower)) == "rules/not_a_comrade"
    assert not table.rules.members["bors"].present
    table.do(BOB, s.Join(contestant="bors", comrade="aria"))
    assert table.rp("bors") == 2


def test_assists_to_one_of_two_sharing_a_tally_escalate_together() -> None:
    table = Table(heroes(bors_joins_later=True))
    table.adjust("aria", 3)
    table.do(GM, s.Join(contestant="bors", comrade="aria"))
    table.do(GM, s.Assist(helper="dina", beneficiary="aria", faces=[1, 11]))  # degree 1: 2 off
    table.stand()
    table.do(GM, s.Assist(helper="dina", beneficiary="bors", faces=[20, 20]))
    table.stand()
    assert [r.second.rating for r in table.events(s.ContestRolled)] == ["10", "15"]
    assert table.rp("bors") == 1


def test_a_pc_who_joined_a_comrade_cannot_assist_the_tally_it_shares() -> None:
    table = Table(heroes(bors_joins_later=True))
    table.adjust("aria", 3)
    table.do(BOB, s.Join(contestant="bors", comrade="aria"))
    # helping Aria would take RP off Bors' own tally: an assist to himself
    assert table.refused(GM, s.Assist(helper="bors", beneficiary="aria", faces=[1, 11])) == "rules/assist_self"
    assert table.refused(GM, s.Assist(helper="aria", beneficiary="bors", faces=[1, 11])) == "rules/assist_self"
    table.do(GM, s.Assist(helper="dina", beneficiary="bors", faces=[1, 11]))  # a follower has its own tally
    table.stand()
    assert table.rp("aria") == table.rp("bors") == 1


def test_the_gm_corrects_a_tally_with_a_reason() -> None:
    table = Table()
    table.adjust("ogre", 5)
    assert table.out("ogre") == "tally" and table.rules.phase == "decided"
    table.adjust("ogre", -2)  # the GM takes it back
    assert table.out("ogre") is None and table.rules.phase == "between"
    assert table.refused(GM, s.Adjust(contestant="ogre", delta=1, reason=" ")) == "rules/no_reason"
    assert table.refused(GM, s.Adjust(contestant="ogre", delta=0, reason="x")) == "rules/bad_delta"
    assert table.refused(ANN, s.Adjust(contestant="ogre", delta=-3, reason="please")) == "auth/forbidden"


def test_undo_takes_back_a_whole_round() -> None:
    table = Table()
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    table.do(ANN, Declare(participant="aria", payload=s.Tactic(tactic="gambit")))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    before = table.rules
    table.do(GM, s.Roll(faces=[15, 16]))
    table.stand()
    assert table.rp("ogre") == 4
    table.do(GM, Undo())
    assert table.rules == before and table.rules.phase == "ready"


def out_aria() -> Table:
    table = Table()
    table.adjust("aria", 5)
    assert table.out("aria") == "tally"
    return table


@pytest.mark.parametrize(
    ("actor", "command"),
    [
        (GM, s.StartRound(initiative="aria", responder="ogre")),
        (GM, s.Assist(helper="aria", beneficiary="bors", faces=[1, 2])),
        (ANN, s.ShiftPoints(contestant="aria", follower="brin", points=1)),
        (GM, s.EngageFollower(opponent="aria", follower="gob", faces=[1, 2])),
        (GM, s.PartingShot(shooter="aria", target="gob", faces=[1, 2])),
        (GM, s.Assist(helper="bors", beneficiary="aria", faces=[1, 2])),
    ],
)
def test_a_defeated_contestant_cannot_act_or_be_helped(actor: Actor, command: s.Command) -> None:
    assert out_aria().refused(actor, command) == "rules/out_of_contest"


def test_commands_and_tactics_of_another_ruleset_are_refused() -> None:
    table = Table()
    assert table.refused(GM, x.Confirm()) == "contest/foreign_ruleset"
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    assert table.refused(ANN, Declare(participant="aria", payload=x.Intent(bid=3))) == "contest/foreign_ruleset"


def test_rolling_needs_a_revealed_round_and_a_player_of_it() -> None:
    table = Table(heroes(players_type_faces=True))
    assert table.refused(GM, s.Roll(faces=[1, 2])) == "rules/out_of_phase"
    table.do(GM, s.StartRound(initiative="aria", responder="ogre"))
    assert table.refused(GM, s.Roll(faces=[1, 2])) == "rules/out_of_phase"
    table.do(ANN, Declare(participant="aria", payload=s.Tactic()))
    table.do(GM, Declare(participant="ogre", payload=s.Tactic()))
    assert table.refused(BOB, s.Roll(faces=[1, 2])) == "auth/not_your_seat"
    table.do(ANN, s.Roll(faces=[1, 2]))
    table.stand()
    assert table.rules.phase == "between"


def test_corrections_wait_for_the_round_to_end() -> None:
    table = Table()
    table.do(GM, s.StartRound(initiative="cato", responder="ogre"))
    assert table.refused(GM, s.Adjust(contestant="cato", delta=5, reason="x")) == "rules/out_of_phase"


def _setup_with(**changes: object) -> CreateContest:
    request = heroes()
    assert isinstance(request.setup, s.ScoredSetup)
    contestants = list(request.setup.contestants)
    index = next(i for i, c in enumerate(contestants) if c.id == changes.get("id", "cato"))
    contestants[index] = msgspec.structs.replace(contestants[index], **changes)
    setup = msgspec.structs.replace(request.setup, contestants=contestants)
    return msgspec.structs.replace(request, setup=setup)


@pytest.mark.parametrize(
    "changes",
    [
        {"id": "cato", "follower_of": "nobody"},  # a follower of no one
        {"id": "cato", "follower_of": "brin"},  # a follower of a follower
        {"id": "cato", "side": "opposition"},  # not on its leader's side
        {"id": "cato", "role": "main"},  # a follower with no follower's role
        {"id": "ogre", "side": "villains"},  # three sides
        {"id": "ogre", "joins_later": True},  # the opposition has nobody from the start
        {"id": "cato", "rating": "25"},
        {"id": "cato", "story_points": -1},
    ],
)
def test_a_bad_setup_is_refused_naming_the_field(changes: dict[str, object]) -> None:
    with pytest.raises(Refused) as refused:
        Table(_setup_with(**changes))
    assert refused.value.code in ("contest/bad_setup", "rules/bad_rating")
