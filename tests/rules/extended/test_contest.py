"""The extended contest played command by command through the engine (1 vs 1, physical dice)."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import CloseDeclarations, CreateContest, Declare, Redo, Undo
from protocol.rulesets import extended as x
from protocol.views import ContestView
from server.engine.ruleset import Viewer
from server.engine.views import contest_view, viewer_for
from tests.engine.table import ANN, BOB, GM, RULES, SPECTATOR, Table, duel


def view(table: Table, actor: Actor) -> ContestView:
    return contest_view(RULES, table.contest, viewer_for(actor, table.contest.created.seats))


def rolled(table: Table) -> x.ExchangeRolled:
    return next(e.event for e in reversed(table.log) if isinstance(e.event, x.ExchangeRolled))


def applied(table: Table) -> x.ExchangeApplied:
    return next(e.event for e in reversed(table.log) if isinstance(e.event, x.ExchangeApplied))


def test_starting_ap_is_the_value_plus_modifiers_augments_and_followers() -> None:
    request = duel()
    aria = request.setup.contestants[0]
    request.setup.contestants[0] = x.Contestant(
        id=aria.id, name=aria.name, ability=aria.ability, rating="5W2", modifier=3, augment=2, followers_ap=4
    )
    table = Table(request)
    # 5W2 = 45, +3 +2 = 50 (10W2), + 4 followers' AP = 54
    assert table.ap("aria") == 54
    assert table.rules.fighters["aria"].rating == "10W2"
    assert table.ap("orc") == 12


def test_a_round_is_declared_sealed_then_each_side_acts_once() -> None:
    table = Table()
    assert table.rules.phase == "declaring"
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)))
    assert table.rules.phase == "declaring"  # the orc has not declared yet
    table.do(GM, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
    assert table.rules.phase == "ready" and table.rules.actor == "aria"
    # Aria 15 rolls 1 (Critical), the orc 12 rolls 10 (Success): one step, the loser transfers 1 × bid.
    # A Critical cannot be bumped: no hero point is offered and the exchange applies at once.
    table.do(GM, x.Roll(faces=[1, 10]))
    table.stand()
    assert (table.ap("aria"), table.ap("orc")) == (20, 7)
    assert table.rules.actor == "orc"
    # the orc's response: 15 (Failure at 12) against Aria's 3 (Success): the orc loses 1 × its bid of 4
    table.do(GM, x.Roll(faces=[15, 3]))
    table.stand()
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert (table.ap("aria"), table.ap("orc")) == (20, 3)
    assert table.rules.round == 2 and table.rules.phase == "declaring"


def test_no_bid_means_the_default_of_three() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(action="circle"), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[5, 15]))  # Success against Failure: the orc loses 1 × 3
    table.stand()
    assert rolled(table).bid == 3
    assert table.ap("orc") == 9


@pytest.mark.parametrize(
    ("contestant", "bid", "code"),
    [
        ("aria", 0, "rules/bid_too_low"),
        ("aria", -2, "rules/bid_too_low"),
        ("aria", 16, "rules/bid_too_high"),  # starting AP 15: the desperation stake's ceiling
        ("orc", 13, "rules/bid_too_high"),  # the resistance never bids more than it has (12)
    ],
)
def test_bids_outside_the_limits_are_refused(contestant: str, bid: int, code: str) -> None:
    table = Table()
    actor = ANN if contestant == "aria" else GM
    assert table.refused(actor, Declare(participant=contestant, payload=x.Intent(bid=bid))) == code


def test_a_player_may_stake_up_to_starting_ap_when_below_it() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=1), x.Intent(bid=10))
    table.do(GM, x.Roll(faces=[15, 15]))  # tie on equal dice
    table.stand()
    table.do(GM, x.Roll(faces=[1, 20]))  # the orc Critical against Aria's Fumble: Aria transfers 3 × 10
    table.stand()
    assert table.ap("aria") == -15
    # a fresh contest where Aria sits at 5 AP still bids 15, her starting AP
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=1), x.Intent(bid=5))
    table.do(GM, x.Roll(faces=[15, 15]))
    table.stand()
    table.do(GM, x.Roll(faces=[1, 16]))  # the orc Critical against Aria's Failure: 2 × 5 transferred
    table.stand()
    assert table.ap("aria") == 5
    table.do(ANN, Declare(participant="aria", payload=x.Intent(bid=15)))
    assert table.refused(ANN, Declare(participant="aria", payload=x.Intent(bid=16))) == "rules/bid_too_high"


def test_a_hero_point_bumps_the_spender_up_once_per_exchange() -> None:
    table = Table()
    table.declare(x.Intent(bid=4), x.Intent(bid=2))
    table.do(GM, x.Roll(faces=[16, 16]))  # Failure against Failure, equal dice: a tie before the hero point
    table.stand()
    table.do(ANN, x.SpendHeroPoint(contestant="aria"))  # Success against Failure: the orc loses 4
    assert table.ap("orc") == 8
    assert table.rules.fighters["aria"].hero_points == 0
    table.do(GM, x.Roll(faces=[16, 16]))
    table.stand()
    # no hero point left: the exchange applied by itself, and spending now is refused
    assert table.refused(ANN, x.SpendHeroPoint(contestant="aria")) == "rules/out_of_phase"


def test_masteries_cancel_and_bump() -> None:
    table = Table(duel(aria="5W2", orc="20W", hero_points=0))
    table.declare(x.Intent(bid=5), x.Intent(bid=1))
    # Aria 3 at TN 5 (Success), the orc 3 at TN 20 (Success); net one mastery for Aria: Critical vs Success
    table.do(GM, x.Roll(faces=[3, 3]))
    table.stand()
    event = rolled(table)
    assert (event.actor_level, event.defender_level) == ("Critical", "Success")
    assert applied(table).gained == 5  # a transfer: the orc's value 40 is only 5 below 45


def test_a_mastery_left_over_at_critical_bumps_the_opponent_down() -> None:
    table = Table(duel(aria="5W", orc="12", hero_points=0))
    table.declare(x.Intent(bid=3), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[1, 4]))  # Aria Critical already; her mastery drops the orc to Failure
    table.stand()
    event = rolled(table)
    assert (event.actor_level, event.defender_level) == ("Critical", "Failure")
    assert applied(table).lost == 6


def test_no_transfer_when_the_loser_is_six_or_more_below() -> None:
    table = Table(duel(aria="5W", orc="19", hero_points=0))
    table.declare(x.Intent(bid=4), x.Intent(bid=1))
    # Aria (25) rolls a Critical and her mastery drops the orc (19) from Success to Failure: two steps,
    # but the orc is 6 below Aria, so it loses 2 × 4 and Aria gains nothing
    table.do(GM, x.Roll(faces=[1, 10]))
    table.stand()
    assert (applied(table).lost, applied(table).gained) == (8, 0)
    assert (table.ap("aria"), table.ap("orc")) == (25, 11)


def test_edges_add_to_the_bid_only_when_the_defender_pays() -> None:
    request = duel(hero_points=0)
    aria = request.setup.contestants[0]
    request.setup.contestants[0] = x.Contestant(
        id=aria.id, name=aria.name, ability=aria.ability, rating=aria.rating, edge=2
    )
    table = Table(request)
    table.declare(x.Intent(bid=3), x.Intent(bid=3))
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria wins one step: the orc loses 3 + 2
    table.stand()
    assert table.ap("orc") == 7
    table.do(GM, x.Roll(faces=[5, 16]))  # the orc acts and wins one step: Aria's edge does not protect her
    table.stand()
    assert table.ap("aria") == 12


def test_the_contest_ends_mid_round_with_the_outcome_of_the_loser_ap() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=15), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[1, 20]))  # Critical against Fumble: the orc transfers 3 × 15 = 45
    table.stand()
    assert table.ap("orc") == 12 - 45
    outcome = table.rules.outcome
    assert table.rules.phase == "decided"
    assert (outcome.winner, outcome.loser, outcome.loser_ap) == ("aria", "orc", -33)
    assert (outcome.level, outcome.consequence, outcome.benefit) == ("Complete", "Dying", "Heroic")
    # the orc never gets its response
    assert table.refused(GM, x.Roll(faces=[1, 1])) == "rules/out_of_phase"


@pytest.mark.parametrize(
    ("loser_ap", "level", "consequence", "benefit"),
    [
        (0, "Marginal", "Hurt", "Fresh"),
        (-10, "Marginal", "Hurt", "Fresh"),
        (-11, "Minor", "Impaired", "Pumped"),
        (-20, "Minor", "Impaired", "Pumped"),
        (-21, "Major", "Injured", "Invigorated"),
        (-30, "Major", "Injured", "Invigorated"),
        (-31, "Complete", "Dying", "Heroic"),
    ],
)
def test_every_row_of_the_outcome_table(loser_ap: int, level: str, consequence: str, benefit: str) -> None:
    table = Table(duel(hero_points=0))
    table.do(GM, x.Adjust(contestant="orc", delta=loser_ap - 12, reason="the orc slips on the bridge"))
    outcome = table.rules.outcome
    assert (outcome.loser, outcome.loser_ap) == ("orc", loser_ap)
    assert (outcome.level, outcome.consequence, outcome.benefit) == (level, consequence, benefit)


def test_ap_is_hidden_from_others_until_it_first_changes() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    ann = Viewer("ann", "player", frozenset({"aria"}))
    bob = Viewer("bob", "player", frozenset({"orc"}))
    spectator = Viewer("spectator", "spectator")

    def ap_seen(viewer: Viewer, contestant: str) -> int | None:
        view = table.rules and __import__("server.rules.extended.view", fromlist=["view"]).view(table.rules, viewer)
        return next(c.ap for c in view.contestants if c.id == contestant)

    assert ap_seen(ann, "aria") == 15 and ap_seen(ann, "orc") is None and ap_seen(spectator, "aria") is None
    table.declare(x.Intent(bid=2), x.Intent(bid=2), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc loses 2
    table.stand()
    assert ap_seen(ann, "orc") == 10 and ap_seen(spectator, "orc") == 10
    assert ap_seen(bob, "aria") is None and ap_seen(spectator, "aria") is None


def test_parting_shot_can_deepen_the_defeat() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=12), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc loses 12: 0 AP, a Marginal defeat
    table.stand()
    assert table.rules.outcome.level == "Marginal"
    table.do(ANN, x.PartingShot(contestant="aria", bid=10, action="a last cut"))
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc loses 10 more
    table.stand()
    assert table.ap("orc") == -10 and table.rules.phase == "decided"
    assert table.refused(ANN, x.PartingShot(contestant="aria", bid=3)) == "rules/out_of_phase"


def test_a_failed_parting_shot_can_bring_the_opponent_back() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=12), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc at 0
    table.stand()
    assert table.refused(GM, x.PartingShot(contestant="orc")) == "rules/not_the_victor"
    table.do(ANN, x.PartingShot(contestant="aria", bid=4))
    table.do(GM, x.Roll(faces=[16, 1]))  # Aria fails, the orc rolls a Critical: Aria transfers 2 × 4
    table.stand()
    assert table.ap("orc") == 8
    assert table.rules.outcome is None and table.rules.phase == "declaring" and table.rules.round == 2


def test_switching_ability_keeps_ap() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=1), x.Intent(bid=1))
    for _ in range(2):  # round 1 with the first abilities: two ties, no AP moves
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    assert table.rules.round == 2
    table.declare(x.Intent(bid=1, ability="Dodge", rating="5"), x.Intent(bid=1))
    assert table.ap("aria") == 15
    table.do(GM, x.Roll(faces=[8, 20]))  # 8 at TN 5 is a Failure now; the orc fumbles
    table.stand()
    assert rolled(table).actor_level == "Failure"
    assert table.rules.fighters["aria"].ability == "Dodge" and table.ap("aria") == 15


def test_round_1_is_fought_with_the_first_ability() -> None:
    table = Table(duel(hero_points=0))
    switch = x.Intent(bid=12, ability="Dodge", rating="5")
    assert table.refused(ANN, Declare(participant="aria", payload=switch)) == "rules/switch_in_round_1"
    table.declare(x.Intent(bid=12), x.Intent(bid=1))
    assert table.refused(GM, x.ChangeIntent(contestant="aria", intent=switch)) == "rules/switch_in_round_1"
    table.do(GM, x.Roll(faces=[10, 15]))  # 10 is a Success with her Sword 15 (with Dodge 5 it would fail)
    table.stand()
    assert rolled(table).actor_level == "Success" and table.rules.fighters["aria"].ability == "Sword"
    assert table.ap("orc") == 0  # the orc loses 12: Aria may take a parting shot, still in round 1
    shot = x.PartingShot(contestant="aria", bid=4, ability="Dodge", rating="5")
    assert table.refused(ANN, shot) == "rules/switch_in_round_1"
    table.do(ANN, x.PartingShot(contestant="aria", bid=4))


def test_asymmetrical_exchange_wins_nothing_but_can_lose() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=5, kind="asymmetrical", action="cut the rope"), x.Intent(bid=5, kind="asymmetrical"))
    table.do(GM, x.Roll(faces=[1, 15]))  # Aria wins: the other goal succeeds, the orc pays nothing
    table.stand()
    assert table.ap("orc") == 12 and applied(table).winner == "aria"
    table.do(GM, x.Roll(faces=[15, 1]))  # the orc acts asymmetrically and loses: it pays 2 × 5, transferred
    table.stand()
    assert (table.ap("orc"), table.ap("aria")) == (2, 25)


def test_unrelated_action_forfeits_the_exchange() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(kind="unrelated", action="open the door", resistance="10"), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[3, 15]))  # Success against the door's Failure: a Minor Victory, no AP moves
    table.stand()
    assert applied(table).result == "unrelated action: Minor Victory"
    assert (table.ap("aria"), table.ap("orc")) == (15, 12)


def test_gm_adjustment_needs_a_reason() -> None:
    table = Table()
    assert table.refused(GM, x.Adjust(contestant="orc", delta=2, reason=" ")) == "rules/no_reason"
    assert table.refused(ANN, x.Adjust(contestant="orc", delta=2, reason="why not")) == "auth/forbidden"
    table.do(GM, x.Adjust(contestant="orc", delta=2, reason="reinforcements"))
    assert table.ap("orc") == 14


def test_better_roll_high() -> None:
    table = Table(duel(hero_points=0, better_roll="high"))
    table.declare(x.Intent(bid=4), x.Intent(bid=1))
    table.do(GM, x.Roll(faces=[9, 4]))  # both Success; with "high" the 9 wins: the orc loses ½ × 4
    table.stand()
    assert table.ap("orc") == 10


def test_gm_proposes_a_bid_and_the_player_accepts() -> None:
    table = Table(duel(hero_points=0))
    table.declare(x.Intent(bid=2, action="all-out assault"), x.Intent(bid=1))
    table.do(GM, x.ProposeBid(contestant="aria", bid=8))
    table.do(ANN, x.AcceptBid(contestant="aria"))
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    assert rolled(table).bid == 8 and table.ap("orc") == 4


def test_gm_closes_the_window_and_missing_intents_take_the_defaults() -> None:
    table = Table(duel(hero_points=0))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(bid=2)))
    assert table.refused(ANN, CloseDeclarations()) == "auth/forbidden"
    table.do(GM, CloseDeclarations())
    assert table.rules.intents["orc"] == x.Intent()


@pytest.mark.parametrize(
    ("actor", "command", "code"),
    [
        (ANN, x.Roll(faces=[1, 1]), "rules/out_of_phase"),  # rolling while intents are being declared
        (ANN, Declare(participant="orc", payload=x.Intent()), "auth/not_your_seat"),
        (GM, Declare(participant="aria", payload=x.Intent()), "auth/not_your_seat"),
        (ANN, Undo(), "auth/forbidden"),
        (ANN, Redo(), "auth/forbidden"),
        (SPECTATOR, Declare(participant="aria", payload=x.Intent()), "auth/forbidden"),
        (SPECTATOR, x.Roll(), "auth/forbidden"),
        (ANN, x.SpendHeroPoint(contestant="aria"), "rules/out_of_phase"),
        (ANN, x.SetOrder(order=["orc", "aria"]), "auth/forbidden"),
        (GM, x.SetOrder(order=["orc"]), "rules/bad_order"),
        (GM, Undo(), "undo/nothing_to_undo"),
        (GM, Redo(), "undo/nothing_to_redo"),
        (GM, Declare(participant="nobody", payload=x.Intent()), "seal/not_expected"),
        (ANN, Declare(participant="aria", payload=x.Intent(ability="Dodge")), "rules/bad_intent"),
        (ANN, Declare(participant="aria", payload=x.Intent(ability="Dodge", rating="5Q")), "rules/bad_rating"),
    ],
)
def test_illegal_commands_are_refused_with_a_stable_code(actor: object, command: object, code: str) -> None:
    table = Table()
    assert table.refused(actor, command) == code  # type: ignore[arg-type]


def test_out_of_turn_and_dice_mistakes() -> None:
    table = Table(duel(hero_points=0, pvp=True))
    table.declare(x.Intent(bid=2), x.Intent(bid=2), orc_actor=BOB)
    assert table.refused(GM, x.Roll()) == "dice/wrong_mode"  # physical dice need faces
    assert table.refused(GM, x.Roll(faces=[0, 5])) == "dice/bad_face"
    assert table.refused(GM, x.Roll(faces=[21, 5])) == "dice/bad_face"
    assert table.refused(GM, x.Roll(faces=[5])) == "dice/bad_face"
    assert table.refused(ANN, x.Roll(faces=[5, 15])) == "dice/typed_by_gm"  # the GM has not allowed it


def test_a_player_rolls_only_their_own_exchange() -> None:
    table = Table(duel(dice="server", hero_points=0, pvp=True))
    table.declare(x.Intent(bid=2), x.Intent(bid=2), orc_actor=BOB)
    assert table.refused(BOB, x.Roll()) == "rules/out_of_turn"  # Aria acts first
    table.do(ANN, x.Roll())
    table.stand()
    assert table.refused(ANN, x.Roll()) == "rules/out_of_turn"  # now it is the orc's exchange
    table.do(BOB, x.Roll())
    table.stand()


def test_players_type_their_own_faces_when_the_gm_allows_it() -> None:
    table = Table(duel(hero_points=0, pvp=True, players_type_faces=True))
    table.declare(x.Intent(bid=2), x.Intent(bid=2), orc_actor=BOB)
    assert table.refused(BOB, x.Roll(faces=[5, 15])) == "rules/out_of_turn"
    table.do(ANN, x.Roll(faces=[5, 15]))
    table.stand()
    assert rolled(table).dice.source == "physical"


def test_server_dice_refuse_typed_faces() -> None:
    table = Table(duel(dice="server", hero_points=0))
    table.declare(x.Intent(bid=2), x.Intent(bid=2))
    assert table.refused(GM, x.Roll(faces=[1, 1])) == "dice/wrong_mode"
    table.do(ANN, x.Roll())
    table.stand()
    event = rolled(table)
    assert event.dice is not None and event.dice.source == "server" and len(event.dice.faces) == 2


def test_a_hero_point_is_offered_only_when_a_step_up_would_change_the_result() -> None:
    table = Table(duel(hero_points=1, pvp=True))
    table.declare(x.Intent(bid=4), x.Intent(bid=2), orc_actor=BOB)
    # Aria's Critical cannot go higher; the orc's Success raised to Critical would cut what it loses
    table.do(GM, x.Roll(faces=[1, 10]))
    assert table.rules.phase == "rolled"
    assert table.rules.exchange is not None and table.rules.exchange.eligible == ["orc"]
    assert table.refused(ANN, x.SpendHeroPoint(contestant="aria")) == "rules/hero_point_no_effect"
    table.do(BOB, x.SpendHeroPoint(contestant="orc"))  # Critical against Critical: Aria's lower die still wins
    assert table.rules.phase == "rolled"  # Ann has not answered yet
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert table.rules.phase == "ready" and table.rules.actor == "orc"
    assert table.rules.fighters["aria"].hero_points == 1  # never spent


def test_nobody_is_asked_for_a_hero_point_when_none_could_matter() -> None:
    table = Table(duel(hero_points=1, hero_point_window="when_it_matters"))
    table.declare(x.Intent(bid=2), x.Intent(bid=2))
    table.do(GM, x.Roll(faces=[1, 20]))  # Aria's Critical against the orc's Fumble: nothing to gain
    assert table.rules.phase == "ready" and table.ap("orc") == 12 - 3 * 2


def test_the_phase_says_the_contest_is_over_once_concluded() -> None:
    from protocol.events import Conclude

    table = Table(duel(hero_points=0))
    table.do(GM, Conclude())
    assert table.rules.phase == "over"
    assert view(table, GM).rules.phase == "over"


def test_the_gm_sees_its_own_contestants_as_controlled_by_it() -> None:
    table = Table(duel(hero_points=0))
    mine = {c.id: c.controlled_by_you for c in view(table, GM).rules.contestants}
    assert mine == {"aria": False, "orc": True}
    theirs = {c.id: c.controlled_by_you for c in view(table, ANN).rules.contestants}
    assert theirs == {"aria": True, "orc": False}


def test_players_are_told_when_they_may_type_their_own_faces() -> None:
    assert view(Table(duel(hero_points=0)), ANN).rules.players_type_faces is False
    assert view(Table(duel(hero_points=0, players_type_faces=True)), ANN).rules.players_type_faces is True


def _aria(rating: str = "15", modifier: int = 0, augment: int = 0, **more: Any) -> CreateContest:
    request = duel()
    request.setup.contestants[0] = x.Contestant(
        id="aria", name="Aria", ability="Sword", rating=rating, modifier=modifier, augment=augment, **more
    )
    return request


@pytest.mark.parametrize(
    ("rating", "modifier", "augment"),
    [("20W100", 1, 0), ("10", 2011, 0), ("10", 10**6, 0), ("20W99", 10, 11), ("10", -(10**6), 0)],
)
def test_a_setup_no_roll_could_be_made_with_is_refused(rating: str, modifier: int, augment: int) -> None:
    # 20W100 is the highest rating that can be written; 10 + 2011 would be 1W101, which cannot
    with pytest.raises(Refused) as exc:
        Table(_aria(rating, modifier, augment, followers_ap=10**6))
    assert exc.value.code == "contest/bad_setup"


def test_a_follower_whose_rating_cannot_be_written_is_refused() -> None:
    follower = x.Follower(name="Hound", rating="20W100", modifier=1)
    with pytest.raises(Refused) as exc:
        Table(_aria(followers=[follower]))
    assert exc.value.code == "contest/bad_setup"


def test_the_highest_rating_that_can_be_written_is_rolled_with() -> None:
    table = Table(_aria("20W99", modifier=15, augment=5))  # 1999 + 20 = 2019 + 1: 20W100
    assert table.rules.fighters["aria"].rating == "20W100"
    table.declare()
    table.do(GM, x.Roll(faces=[5, 15]))
    assert rolled(table).actor_level == "Critical" and rolled(table).actor_value == 2020
