"""Group extended contests (seed 000 §5.3.3 group, §5.3.2.5, §5.3.4, §5.3.5, §5.3.10-12; RULES.md §1) played
command by command at the pure table with physical dice."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from protocol.common import Seat
from protocol.events import CloseDeclarations, Declare
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.ruleset import window
from server.rules.extended.view import view
from tests.engine.table import ANN, BOB, GM, Table
from tests.rules.extended.group import PLAYER, attack, declare, raid


def last(table: Table, kind: type[Any]) -> Any:
    return next(e.event for e in reversed(table.log) if isinstance(e.event, kind))


def aps(table: Table) -> dict[str, int]:
    return {c: f.ap for c, f in table.rules.fighters.items()}


def everyone_attacks(table: Table, **bids: int) -> None:
    declare(
        table,
        {
            "aria": attack("orc", bids.get("aria", 3)),
            "bran": attack("wolf", bids.get("bran", 3)),
            "orc": attack("aria", bids.get("orc", 3)),
            "wolf": attack("bran", bids.get("wolf", 3)),
            "shaman": attack("aria", bids.get("shaman", 3)),
        },
    )


def test_a_group_contest_has_sides_and_every_contestant_declares_sealed() -> None:
    table = Table(raid())
    assert table.rules.group and {f.side for f in table.rules.fighters.values()} == {"heroes", "raiders"}
    declared = table.do(ANN, Declare(participant="aria", payload=attack("orc", 5)))
    assert declared[0].visible_to == ["ann"]  # only its author (and the GM) may see the payload
    declare(table, {"bran": attack("wolf"), "orc": attack("aria"), "wolf": attack("bran")})
    assert table.rules.phase == "declaring"  # the shaman has not declared: nothing is revealed yet
    declare(table, {"shaman": attack("bran")})
    assert table.rules.phase == "ready"
    assert table.rules.intents["aria"].targets == ["orc"] and table.rules.intents["aria"].bid == 5


def test_one_side_is_not_a_contest() -> None:
    request = raid()
    request.setup.contestants[:] = [
        x.Contestant(id=c.id, name=c.name, ability=c.ability, rating=c.rating, side="all")
        for c in request.setup.contestants
    ]
    from protocol.errors import Refused

    with pytest.raises(Refused) as refused:
        Table(request)
    assert refused.value.code == "contest/bad_setup"


def test_a_group_action_names_opponents_still_in() -> None:
    table = Table(raid())
    assert table.refused(ANN, Declare(participant="aria", payload=x.Intent(bid=3))) == "rules/no_target"
    assert table.refused(ANN, Declare(participant="aria", payload=attack("bran"))) == "rules/bad_target"
    assert table.refused(ANN, Declare(participant="aria", payload=attack("troll"))) == "rules/bad_target"
    assert (
        table.refused(ANN, Declare(participant="aria", payload=x.Intent(targets=["orc", "orc"]))) == "rules/bad_target"
    )
    # an unrelated action needs no target, and the resistance never bids above its AP
    table.do(ANN, Declare(participant="aria", payload=x.Intent(kind="unrelated", action="bar the door")))
    assert table.refused(GM, Declare(participant="wolf", payload=attack("aria", 11))) == "rules/bid_too_high"


def test_a_group_contestant_uses_its_first_ability_in_round_1() -> None:
    table = Table(raid())
    switch = attack("orc", ability="Bow", rating="18")
    assert table.refused(ANN, Declare(participant="aria", payload=switch)) == "rules/switch_in_round_1"
    everyone_attacks(table)
    assert table.refused(GM, x.ChangeIntent(contestant="aria", intent=switch)) == "rules/switch_in_round_1"
    assert table.rules.fighters["aria"].ability == "Fight" and table.rules.intents["aria"] == attack("orc")


# --- the round's order ----------------------------------------------------------------------------------


def test_order_by_daring_ties_to_the_higher_bid() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("orc", 3, "reckless"),
            "bran": attack("wolf", 5, "daring"),
            "orc": attack("aria", 7, "daring"),
            "wolf": attack("bran", 9, "cautious"),
            "shaman": attack("aria", 2, "bold"),
        },
    )
    table.do(GM, x.OrderBy(mode="daring"))
    assert table.rules.order == ["aria", "orc", "bran", "shaman", "wolf"]
    assert last(table, x.OrderSet).mode == "daring"
    # the GM ranks the wolf's careful-sounding action as reckless after all: it now goes first
    table.do(GM, x.RankDaring(contestant="wolf", daring="reckless"))
    table.do(GM, x.OrderBy(mode="daring"))
    assert table.rules.order == ["wolf", "aria", "orc", "bran", "shaman"]


def test_order_by_bid_ties_to_the_more_daring() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("orc", 5, "bold"),
            "bran": attack("wolf", 5, "reckless"),
            "orc": attack("aria", 8, "cautious"),
            "wolf": attack("bran", 2, "reckless"),
            "shaman": attack("aria", 5, "cautious"),
        },
    )
    table.do(GM, x.OrderBy(mode="bid"))
    assert table.rules.order == ["orc", "bran", "aria", "shaman", "wolf"]


def test_order_by_ap_total_ties_to_the_higher_bid_then_the_more_daring() -> None:
    table = Table(raid())
    # AP: Aria 15, Bran 12, orc 12, wolf 10, shaman 8; Bran and the orc tie on AP, the orc bids higher
    declare(
        table,
        {
            "aria": attack("orc", 1),
            "bran": attack("wolf", 3, "reckless"),
            "orc": attack("aria", 4, "cautious"),
            "wolf": attack("bran", 9),
            "shaman": attack("aria", 8),
        },
    )
    table.do(GM, x.OrderBy(mode="ap"))
    assert table.rules.order == ["aria", "orc", "bran", "wolf", "shaman"]
    # with equal bids the more daring goes first
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("orc", 1),
            "bran": attack("wolf", 4, "reckless"),
            "orc": attack("aria", 4, "cautious"),
            "wolf": attack("bran"),
            "shaman": attack("aria"),
        },
    )
    table.do(GM, x.OrderBy(mode="ap"))
    assert table.rules.order == ["aria", "bran", "orc", "wolf", "shaman"]


def test_the_order_is_the_gms_and_fixed_once_the_round_begins() -> None:
    table = Table(raid())
    assert table.refused(GM, x.OrderBy(mode="bid")) == "rules/out_of_phase"  # nothing revealed yet
    everyone_attacks(table)
    assert table.refused(ANN, x.OrderBy(mode="bid")) == "auth/forbidden"
    assert table.refused(GM, x.SetOrder(order=["aria", "bran"])) == "rules/bad_order"
    table.do(GM, x.SetOrder(order=["shaman", "wolf", "orc", "bran", "aria"]))
    assert table.rules.actor == "shaman"
    table.do(GM, x.Roll(faces=[15, 15]))  # the shaman (8) fails, Aria (15) succeeds: the shaman loses 3
    table.stand()
    assert table.refused(GM, x.OrderBy(mode="daring")) == "rules/out_of_phase"


# --- turns: delays, knock-outs, targets ------------------------------------------------------------------


def test_delaying_then_jumping_back_in() -> None:
    table = Table(raid())
    everyone_attacks(table)
    assert table.rules.actor == "aria"
    table.do(BOB, x.Delay(contestant="bran"))
    assert table.rules.order == ["aria", "orc", "wolf", "shaman", "bran"] and table.rules.delayed == ["bran"]
    assert table.refused(BOB, x.Delay(contestant="bran")) == "rules/out_of_turn"  # already delaying
    assert table.refused(ANN, x.JumpIn(contestant="aria")) == "rules/not_delayed"
    table.do(GM, x.Roll(faces=[19, 19]))  # Aria's exchange: Failure against the orc's Failure, equal dice
    table.stand()
    table.do(BOB, x.JumpIn(contestant="bran"))  # Bran acts now, before the orc
    assert table.rules.actor == "bran" and table.rules.delayed == []
    table.do(GM, x.Roll(faces=[5, 15]))  # Bran succeeds against the wolf: the wolf loses 3
    table.stand()
    assert table.ap("wolf") == 7 and table.rules.actor == "orc"


def test_a_delaying_contestant_acts_at_the_end_of_the_round() -> None:
    table = Table(raid())
    everyone_attacks(table)
    table.do(ANN, x.Delay(contestant="aria"))
    for _ in range(4):
        assert table.rules.actor != "aria"
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    assert table.rules.actor == "aria"
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    assert table.rules.round == 2 and table.rules.phase == "declaring"


def test_a_contestant_knocked_out_before_its_turn_does_not_act() -> None:
    table = Table(raid())
    everyone_attacks(table, bran=12)
    table.do(GM, x.Roll(faces=[19, 19]))  # Aria: a tie
    table.stand()
    # Bran (12) rolls 5 against the wolf's 20: Success against Fumble, the wolf loses 2 × 12 and is out
    table.do(GM, x.Roll(faces=[5, 20]))
    table.stand()
    assert table.ap("wolf") == -14 and table.rules.actor == "orc"
    table.do(GM, x.Roll(faces=[19, 19]))  # the orc: a tie
    table.stand()
    assert table.rules.actor == "shaman"  # the wolf's turn never comes
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    assert table.rules.round == 2
    # out of the contest, the wolf cannot act: it is not asked to declare, nor may it delay
    assert table.refused(GM, Declare(participant="wolf", payload=attack("bran"))) == "seal/not_expected"
    assert "wolf" not in table.rules.order


def test_a_target_already_out_needs_the_gms_leave_to_change_the_action() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("wolf", 12),
            "bran": attack("wolf"),
            "orc": attack("aria"),
            "wolf": attack("bran"),
            "shaman": attack("aria"),
        },
    )
    table.do(GM, x.Roll(faces=[5, 20]))  # Aria knocks the wolf out (2 × 12)
    table.stand()
    assert table.refused(GM, x.Roll(faces=[5, 15])) == "rules/no_target"  # Bran's only target is out
    retarget = x.ChangeIntent(contestant="bran", intent=attack("orc"))
    assert table.refused(BOB, retarget) == "rules/change_not_allowed"
    assert table.refused(ANN, x.AllowChange(contestant="bran")) == "auth/forbidden"
    table.do(GM, x.AllowChange(contestant="bran"))
    assert table.refused(GM, x.AllowChange(contestant="bran")) == "rules/change_already_allowed"
    table.do(BOB, retarget)
    table.do(GM, x.Roll(faces=[5, 15]))  # Bran succeeds against the orc
    table.stand()
    assert last(table, x.ExchangeRolled).defender == "orc" and table.ap("orc") == 9


def test_a_contestant_whose_target_is_out_may_pass() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": attack("wolf", 12),
            "bran": attack("wolf"),
            "orc": attack("aria"),
            "wolf": attack("bran"),
            "shaman": attack("aria"),
        },
    )
    table.do(GM, x.Roll(faces=[5, 20]))
    table.stand()
    assert table.refused(ANN, x.PassTurn(contestant="bran")) == "auth/not_your_seat"
    table.do(BOB, x.PassTurn(contestant="bran"))
    assert table.rules.actor == "orc" and "bran" in table.rules.acted


def test_several_targets_are_engaged_one_exchange_each() -> None:
    table = Table(raid())
    declare(
        table,
        {
            "aria": x.Intent(bid=2, targets=["orc", "shaman"], daring="reckless"),
            "bran": attack("wolf"),
            "orc": attack("aria"),
            "wolf": attack("bran"),
            "shaman": attack("aria"),
        },
    )
    table.do(GM, x.Roll(faces=[5, 15]))  # against the orc
    table.stand()
    assert table.rules.actor == "aria" and table.rules.targets_left == ["shaman"]
    table.do(GM, x.Roll(faces=[5, 15]))  # against the shaman
    table.stand()
    assert (table.ap("orc"), table.ap("shaman")) == (10, 6)
    assert table.rules.actor == "bran"
    assert table.rules.fighters["aria"].last_opponent == "shaman"


def test_the_group_tie_option_costs_both_half_the_bid() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=5)
    table.do(GM, x.Roll(faces=[20, 20]))  # Fumble against Fumble: the GM chooses
    table.stand()
    assert table.rules.phase == "rolled"
    table.do(GM, x.Confirm(group_tie=True))
    assert (table.ap("aria"), table.ap("orc")) == (12, 9)  # both lose ½ × 5, rounded up
    assert last(table, x.ExchangeApplied).both_lost == 3
    table.do(GM, x.Roll(faces=[20, 20]))  # Bran and the wolf fumble too; this time the GM leaves it a tie
    table.stand()
    table.do(GM, x.Confirm())
    assert (table.ap("bran"), table.ap("wolf")) == (12, 10)
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc succeeds: an ordinary exchange applies at once
    table.stand()
    assert table.refused(GM, x.Confirm(group_tie=True)) == "rules/out_of_phase"


def test_the_group_tie_needs_a_fumble_on_both_sides() -> None:
    table = Table(raid(hero_points={"aria": 1}))
    everyone_attacks(table)
    table.do(GM, x.Roll(faces=[20, 15]))  # Aria fumbles, the orc fails: she has a hero point to decide on
    table.stand()
    assert table.refused(GM, x.Confirm(group_tie=True)) == "rules/no_group_tie"


# --- the end ------------------------------------------------------------------------------------------


def navy() -> Table:
    """Three PCs against three French defenders (seed 000 §5.3.2.5's first example)."""
    request = raid()
    people: list[tuple[str, str | None, str]] = [
        ("jackson", "ann", "heroes"),
        ("hale", "bob", "heroes"),
        ("pike", "cy", "heroes"),
    ]
    people += [("f1", None, "french"), ("f2", None, "french"), ("f3", None, "french")]
    request.setup.contestants[:] = [
        x.Contestant(id=c, name=c, ability="Fight", rating="18" if seat else "10", side=side)
        for c, seat, side in people
    ]
    from protocol.common import Seat

    request.seats[:] = [Seat("gm", "gm")] + [Seat(seat, "player", [c]) for c, seat, _ in people if seat]
    return Table(request)


def test_the_side_with_the_last_undefeated_contestant_wins_and_takes_the_second_best_outcome() -> None:
    from protocol.common import Actor

    table = navy()
    players = {"jackson": ANN, "hale": BOB, "pike": Actor("cy", "player")}
    declare_all = {
        "jackson": attack("f1", 18),
        "hale": attack("f2", 13),
        "pike": attack("f3", 12),
        "f1": attack("jackson"),
        "f2": attack("hale"),
        "f3": attack("pike"),
    }
    for contestant, intent in declare_all.items():
        table.do(players.get(contestant, GM), Declare(participant=contestant, payload=intent))
    table.do(GM, x.Roll(faces=[5, 20]))  # Success against Fumble: f1 loses 2 × 18 → -26, a Major defeat
    table.stand()
    table.do(GM, x.Roll(faces=[1, 15]))  # Critical against Failure: f2 loses 2 × 13 → -16, Minor (no transfer)
    table.stand()
    assert table.rules.phase == "ready"
    table.do(GM, x.Roll(faces=[5, 15]))  # Success against Failure: f3 loses 12 → -2, Marginal
    table.stand()
    outcome = table.rules.outcome
    assert table.rules.phase == "decided" and outcome.winning_side == "heroes"
    own = {o.contestant: (o.result, o.level, o.consequence or o.benefit, o.by_ap) for o in outcome.outcomes}
    assert own == {
        "jackson": ("victory", "Major", "Invigorated", -26),
        "hale": ("victory", "Minor", "Pumped", -16),
        "pike": ("victory", "Marginal", "Fresh", -2),
        "f1": ("defeat", "Major", "Injured", -26),
        "f2": ("defeat", "Minor", "Impaired", -16),
        "f3": ("defeat", "Marginal", "Hurt", -2),
    }
    sides = {s.side: (s.result, s.level, s.from_contestant) for s in outcome.sides}
    # the Royal Navy's major, minor and marginal victories: a minor victory; the French second-worst: minor
    assert sides == {"heroes": ("victory", "Minor", "hale"), "french": ("defeat", "Minor", "f2")}


def test_the_losing_side_takes_the_second_worst_outcome() -> None:
    from server.rules.extended.decision import side_outcome

    def defeat(who: str, level: str) -> x.ContestantOutcome:
        return x.ContestantOutcome(who, "navy", "defeat", level, "", None, 0)

    # seed 000's second example: a major defeat, two minor defeats and a marginal defeat: a minor defeat
    crew = [defeat("jackson", "Major"), defeat("a", "Minor"), defeat("b", "Minor"), defeat("c", "Marginal")]
    french = [x.ContestantOutcome(f, "french", "victory", "Minor", None, "Pumped", -15) for f in ("f1", "f2")]
    assert side_outcome("navy", False, crew, french) == x.SideOutcome("navy", "defeat", "Minor", "a")
    assert side_outcome("navy", False, crew[:1], french) == x.SideOutcome("navy", "defeat", "Major", "jackson")
    assert side_outcome("navy", True, [], french) == x.SideOutcome("navy", "none", None, None)


def test_a_side_that_wins_has_a_victory_and_a_side_that_loses_a_defeat() -> None:
    from server.rules.extended.decision import side_outcome

    def outcome(who: str, result: str, level: str, side: str = "heroes") -> x.ContestantOutcome:
        return x.ContestantOutcome(who, side, result, level, None, None, 0)

    raiders = [outcome(r, "defeat", "Major", "raiders") for r in ("orc", "wolf")]
    # against two raiders, Aria's Major victory won the mill and Bran fell with a Marginal defeat: the
    # second-best is his defeat, but the heroes gained the prize, so theirs is the mildest victory
    won = [outcome("aria", "victory", "Major"), outcome("bran", "defeat", "Marginal")]
    assert side_outcome("heroes", True, won, raiders) == x.SideOutcome("heroes", "victory", "Marginal", None)
    # the other way round: a side that lost with one Complete victory and one Minor defeat has lost
    lost = [outcome("aria", "victory", "Complete"), outcome("bran", "defeat", "Minor")]
    assert side_outcome("heroes", False, lost, raiders) == x.SideOutcome("heroes", "defeat", "Marginal", None)
    # the picked outcome on the right side of the line stays the contestant's own
    both = [*won, outcome("cai", "victory", "Minor")]
    assert side_outcome("heroes", True, both, raiders) == x.SideOutcome("heroes", "victory", "Minor", "cai")


def skirmish(ratings: dict[str, str], sides: dict[str, str]) -> Table:
    """The contestants named (Ann's Aria and Bob's Bran as PCs, the others the GM's), physical dice."""
    from protocol.common import Seat

    request = raid()
    request.setup.contestants[:] = [
        x.Contestant(id=c, name=c.capitalize(), ability="Fight", rating=rating, side=sides[c])
        for c, rating in ratings.items()
    ]
    request.seats[:] = [Seat("gm", "gm")] + [
        Seat(seat, "player", [c]) for c, seat in (("aria", "ann"), ("bran", "bob")) if c in ratings
    ]
    return Table(request)


def test_a_side_that_wins_against_one_opponent_has_the_outcome_against_it() -> None:
    table = skirmish({"aria": "15", "bran": "6", "troll": "14"}, {"aria": "heroes", "bran": "heroes", "troll": "troll"})
    table.do(GM, x.SetOrder(order=["troll", "aria", "bran"]))
    declare(table, {"aria": attack("troll", 13), "bran": attack("troll"), "troll": attack("bran", 7)})
    table.do(GM, x.Roll(faces=[5, 15]))  # the troll's Success against Bran's Failure: Bran loses 7, to -1
    table.stand()
    table.do(GM, x.Roll(faces=[1, 20]))  # Aria's Critical against a Fumble: the troll transfers 3 × 13, to -25
    table.stand()
    outcome = table.rules.outcome
    assert table.rules.phase == "decided" and outcome.winning_side == "heroes"
    own = {o.contestant: (o.result, o.level) for o in outcome.outcomes}
    assert own == {"aria": ("victory", "Major"), "bran": ("defeat", "Marginal"), "troll": ("defeat", "Major")}
    # one opponent: the heroes' outcome is the outcome against the troll, Aria's Major victory (not the
    # second-best of a Major victory and Bran's Marginal defeat); the troll alone has its own Major defeat
    sides = {s.side: (s.result, s.level, s.from_contestant) for s in outcome.sides}
    assert sides == {"heroes": ("victory", "Major", "aria"), "troll": ("defeat", "Major", "troll")}


def test_a_side_that_loses_with_one_pc_has_that_pcs_outcome() -> None:
    table = skirmish({"aria": "15", "orc": "12", "wolf": "10"}, {"aria": "heroes", "orc": "raiders", "wolf": "raiders"})
    declare(table, {"aria": attack("wolf", 6), "orc": attack("aria", 12), "wolf": attack("aria")})
    table.do(GM, x.Roll(faces=[5, 20]))  # Aria's Success against the wolf's Fumble: the wolf loses 2 × 6, to -2
    table.stand()
    table.do(GM, x.Roll(faces=[1, 20]))  # the orc's Critical against Aria's Fumble: 3 × 12 transferred, to -21
    table.stand()
    outcome = table.rules.outcome
    assert table.rules.phase == "decided" and outcome.winning_side == "raiders"
    own = {o.contestant: (o.result, o.level) for o in outcome.outcomes}
    assert own == {"aria": ("defeat", "Major"), "orc": ("victory", "Major"), "wolf": ("defeat", "Marginal")}
    # the heroes lost with one PC: her Major defeat (though she beat the wolf); the raiders won against her
    # alone: the outcome against her, the orc's Major victory, not the wolf's fall
    sides = {s.side: (s.result, s.level, s.from_contestant) for s in outcome.sides}
    assert sides == {"heroes": ("defeat", "Major", "aria"), "raiders": ("victory", "Major", "orc")}


def test_individual_outcome_comes_from_the_last_opponent_engaged() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=15)
    table.do(GM, x.Roll(faces=[5, 20]))  # Aria takes the orc to 12 - 30 = -18 (Minor)
    table.stand()
    # Bran, the wolf and the shaman are still in; the GM settles it by adjustments
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    for contestant, delta in [("wolf", -35), ("shaman", -12)]:
        table.do(GM, x.Adjust(contestant=contestant, delta=delta, reason="the mill collapses"))
    outcome = table.rules.outcome
    own = {o.contestant: (o.result, o.level) for o in outcome.outcomes}
    # Aria's last opponent, the orc, ended at -18: a Minor victory; Bran's, the wolf, at -25: Major
    assert own["aria"] == ("victory", "Minor") and own["bran"] == ("victory", "Major")
    assert own["shaman"] == ("defeat", "Marginal") and own["wolf"] == ("defeat", "Major")


# --- parting shots in groups ------------------------------------------------------------------------------


def test_a_parting_shot_in_a_group_comes_at_once_and_the_round_goes_on() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=12)
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria takes the orc to 0
    table.stand()
    assert table.rules.open_shots == {"aria": "orc"}
    assert table.refused(BOB, x.PartingShot(contestant="bran")) == "rules/not_the_victor"
    table.do(ANN, x.PartingShot(contestant="aria", bid=4))
    assert table.rules.actor == "aria"
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    assert table.ap("orc") == -4 and table.rules.actor == "bran" and table.rules.phase == "ready"


def test_the_next_turn_closes_an_unused_parting_shot() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=12)
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(GM, x.Roll(faces=[19, 19]))  # Bran's turn
    table.stand()
    assert table.refused(ANN, x.PartingShot(contestant="aria")) == "rules/out_of_phase"


def test_a_failed_parting_shot_brings_the_opponent_back_to_act() -> None:
    table = Table(raid())
    declare(
        table,
        {"orc": attack("aria"), "wolf": attack("bran"), "shaman": attack("aria"), "aria": attack("orc", 12)},
    )
    table.do(BOB, Declare(participant="bran", payload=attack("wolf")))
    table.do(GM, x.SetOrder(order=["aria", "bran", "orc", "wolf", "shaman"]))
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc at 0
    table.stand()
    table.do(ANN, x.PartingShot(contestant="aria", bid=3))
    table.do(GM, x.Roll(faces=[16, 1]))  # Aria fails, the orc's Critical: Aria transfers 2 × 3
    table.stand()
    assert table.ap("orc") == 6 and table.rules.fighters["orc"].in_contest
    table.do(GM, x.Roll(faces=[19, 19]))  # Bran
    table.stand()
    assert table.rules.actor == "orc"  # back in, and its turn had not come


def test_a_parting_shot_open_at_the_end_of_the_round_holds_it_until_declined() -> None:
    table = Table(raid())
    everyone_attacks(table, shaman=8)
    for _ in range(4):
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    table.do(GM, x.Roll(faces=[5, 16]))  # the shaman, last, takes Aria from 15 to 7: not out
    table.stand()
    assert table.rules.round == 2
    table = Table(raid())
    everyone_attacks(table, shaman=8)
    table.do(GM, x.Adjust(contestant="aria", delta=-7, reason="an arrow"))
    for _ in range(4):
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    table.do(GM, x.Roll(faces=[5, 16]))  # the shaman takes Aria from 8 to 0
    table.stand()
    assert table.rules.round == 1 and table.rules.open_shots == {"shaman": "aria"}
    table.do(GM, x.DeclinePartingShot(contestant="shaman"))
    assert table.rules.round == 2


def test_the_gm_lets_the_defeated_go_for_a_player_who_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PLAYER, "shaman", BOB)  # Bob plays the shaman too: its parting shot is his to take
    request = raid()
    seats = [Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["bran", "shaman"])]
    table = Table(msgspec.structs.replace(request, seats=seats))
    everyone_attacks(table, shaman=8)
    table.do(GM, x.Adjust(contestant="aria", delta=-7, reason="an arrow"))
    for _ in range(4):
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    table.do(GM, x.Roll(faces=[5, 16]))  # the shaman takes Aria from 8 to 0 as the round's last exchange
    table.stand()
    assert table.rules.round == 1 and table.rules.open_shots == {"shaman": "aria"}
    assert table.refused(ANN, x.DeclinePartingShot(contestant="shaman")) == "auth/not_your_seat"
    table.do(GM, x.DeclinePartingShot(contestant="shaman"))  # Bob does not answer: the GM moves the table on
    assert table.rules.round == 2 and table.rules.open_shots == {}


# --- final action ------------------------------------------------------------------------------------------


def knocked_out_bran(hero_points: int = 2) -> Table:
    table = Table(raid(hero_points={"bran": hero_points}))
    everyone_attacks(table, wolf=10)
    table.do(GM, x.Roll(faces=[19, 19]))  # Aria: a tie
    table.stand()
    table.do(GM, x.Roll(faces=[19, 19]))  # Bran: a tie
    table.stand()
    table.do(BOB, x.PassHeroPoint(contestant="bran"))
    table.do(GM, x.Roll(faces=[19, 19]))  # the orc: a tie
    table.stand()
    table.do(GM, x.Roll(faces=[1, 20]))  # the wolf's Critical against Bran's Fumble: 3 × 10 transferred
    table.stand()
    table.do(BOB, x.PassHeroPoint(contestant="bran"))
    assert table.ap("bran") == -18
    return table


def test_a_final_action_rejoins_the_contest() -> None:
    table = knocked_out_bran()
    # against a resistance of 18 (the AP below 0): Bran's 3 is a Success, the resistance's 19 a Failure:
    # a Minor Victory, rejoining with 1/4 of his starting 12 AP
    table.do(GM, x.FinalAction(contestant="bran", faces=[3, 19]))
    event = last(table, x.FinalActionTaken)
    assert event.roll.resistance == "18" and event.roll.result == "Minor Victory"
    assert table.ap("bran") == 3 and table.rules.fighters["bran"].in_contest
    assert table.rules.fighters["bran"].hero_points == 1  # the final action cost one of his two
    assert table.rules.fighters["bran"].final_action_used


def test_a_failed_final_action_worsens_the_defeat_and_cannot_be_tried_twice() -> None:
    table = knocked_out_bran()
    table.do(GM, x.FinalAction(contestant="bran", faces=[15, 2]))  # Failure against Success: Minor Defeat
    assert table.ap("bran") == -18 - 3
    table.do(GM, x.GrantHeroPoints(contestant="bran", points=1, reason="a song of the mill"))
    assert table.refused(GM, x.FinalAction(contestant="bran", faces=[3, 19])) == "rules/final_action_used"


def test_final_actions_the_rules_forbid() -> None:
    table = knocked_out_bran(hero_points=1)
    assert table.rules.fighters["bran"].hero_points == 1
    assert table.refused(GM, x.FinalAction(contestant="aria", faces=[3, 19])) == "rules/still_in"
    assert table.refused(BOB, x.FinalAction(contestant="bran", faces=[3, 19])) == "dice/typed_by_gm"
    table.do(GM, x.Adjust(contestant="bran", delta=-13, reason="trampled"))  # -31: Dying
    assert table.refused(GM, x.FinalAction(contestant="bran", faces=[3, 19])) == "rules/dying"
    table.do(GM, x.Adjust(contestant="bran", delta=13, reason="not that bad"))
    table.do(GM, x.FinalAction(contestant="bran", faces=[15, 2]))
    table.do(GM, x.Adjust(contestant="orc", delta=-12, reason="falls in the race"))
    assert table.refused(GM, x.FinalAction(contestant="orc", faces=[3, 19])) == "rules/not_a_pc"


def test_a_final_action_needs_a_hero_point_and_a_group() -> None:
    table = knocked_out_bran(hero_points=1)
    table.do(GM, x.FinalAction(contestant="bran", faces=[3, 19]))
    assert table.rules.fighters["bran"].hero_points == 0
    from tests.engine.table import duel

    duel_table = Table(duel(hero_points=1))
    duel_table.do(GM, x.Adjust(contestant="aria", delta=-20, reason="a fall"))
    assert duel_table.refused(GM, x.FinalAction(contestant="aria", faces=[3, 19])) == "rules/not_a_group"


def test_no_final_action_without_a_hero_point() -> None:
    table = Table(raid())
    table.do(GM, x.Adjust(contestant="bran", delta=-14, reason="an ambush"))
    assert table.refused(GM, x.FinalAction(contestant="bran", faces=[3, 19])) == "rules/no_hero_point"


# --- disengaging, lending, gifting ----------------------------------------------------------------------


def test_disengaging_withdraws_and_rejoining_keeps_the_ap() -> None:
    table = Table(raid())
    everyone_attacks(table)
    table.do(GM, x.Adjust(contestant="aria", delta=-4, reason="a scratch"))
    assert table.refused(GM, x.Disengage(contestant="bran", opponent="wolf", faces=[3, 15])) == "rules/out_of_turn"
    assert table.refused(GM, x.Disengage(contestant="aria", opponent="bran", faces=[3, 15])) == "rules/bad_target"
    table.do(GM, x.Disengage(contestant="aria", opponent="orc", faces=[3, 15]))  # Minor Victory: she leaves
    assert table.rules.fighters["aria"].withdrawn and table.ap("aria") == 11
    assert table.rules.actor == "bran"
    for _ in range(4):  # the orc and the shaman had singled out Aria: they pass
        actor = table.rules.actor
        table.do(GM, x.PassTurn(contestant=actor) if actor in ("orc", "shaman") else x.Roll(faces=[19, 19]))
        table.stand()
    assert table.rules.round == 2 and "aria" not in table.rules.order
    table.do(ANN, x.Rejoin(contestant="aria"))
    assert table.ap("aria") == 11 and "aria" in table.rules.order
    assert table.refused(ANN, x.Rejoin(contestant="aria")) == "rules/not_withdrawn"


def aria_withdrawn_in_round_two() -> Table:
    """Aria disengages from the orc in round 1; the round ends without her, and round 2 begins (declaring)."""
    table = Table(raid())
    everyone_attacks(table)
    table.do(GM, x.Disengage(contestant="aria", opponent="orc", faces=[3, 15]))
    for _ in range(4):  # the orc and the shaman had singled out Aria: they pass
        actor = table.rules.actor
        table.do(GM, x.PassTurn(contestant=actor) if actor in ("orc", "shaman") else x.Roll(faces=[19, 19]))
        table.stand()
    assert table.rules.round == 2 and table.rules.phase == "declaring"
    return table


def test_rejoining_while_the_round_is_declaring_joins_its_declarations() -> None:
    table = aria_withdrawn_in_round_two()
    declare(table, {"orc": attack("bran"), "wolf": attack("bran")})
    table.do(ANN, x.Rejoin(contestant="aria"))
    declare(table, {"bran": attack("wolf"), "shaman": attack("bran")})
    # everyone else has declared, but the reveal waits for Aria: she is expected in this round's window
    assert table.rules.phase == "declaring" and "aria" in window(table.rules).expected
    table.do(ANN, Declare(participant="aria", payload=attack("orc", 5)))
    assert table.rules.phase == "ready" and table.rules.intents["aria"].targets == ["orc"]
    assert "aria" in table.rules.order


def test_rejoining_after_the_reveal_acts_from_the_next_round() -> None:
    table = aria_withdrawn_in_round_two()
    declare(table, {"bran": attack("wolf"), "orc": attack("bran"), "wolf": attack("bran"), "shaman": attack("bran")})
    table.do(ANN, x.Rejoin(contestant="aria"))
    # back in with her AP, but she declared nothing this round: no turn without a target, the round goes on
    assert table.rules.fighters["aria"].in_contest and "aria" not in table.rules.order
    for _ in range(4):
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    assert table.rules.round == 3 and "aria" in window(table.rules).expected


def test_a_failed_disengagement_transfers_ap_to_the_opponent() -> None:
    table = Table(raid())
    everyone_attacks(table)
    # Aria 15 rolls 16 (Failure), the orc's 2 is a Success: a Minor Defeat, ¼ of 15 → 4 to the orc
    table.do(GM, x.Disengage(contestant="aria", opponent="orc", faces=[16, 2]))
    assert (table.ap("aria"), table.ap("orc")) == (11, 16) and not table.rules.fighters["aria"].withdrawn


def test_lending_ap_to_a_comrade() -> None:
    table = Table(raid())
    everyone_attacks(table)
    # Aria lends 6 against a resistance of 6: her 3 is a Success, the resistance's 10 a Failure: Minor Victory
    table.do(GM, x.Lend(lender="aria", target="bran", ap=6, faces=[3, 10]))
    event = last(table, x.LoanResolved)
    assert event.roll.resistance == "6" and event.roll.result == "Minor Victory"
    assert (table.ap("aria"), table.ap("bran")) == (9, 18)
    assert table.rules.actor == "bran"


def test_loans_the_rules_forbid() -> None:
    table = Table(raid())
    everyone_attacks(table)
    assert table.refused(GM, x.Lend(lender="aria", target="aria", ap=3, faces=[3, 10])) == "rules/self_loan"
    assert table.refused(GM, x.Lend(lender="aria", target="orc", ap=3, faces=[3, 10])) == "rules/not_your_side"
    assert table.refused(GM, x.Lend(lender="aria", target="bran", ap=16, faces=[3, 10])) == "rules/bid_too_high"
    assert table.refused(GM, x.Lend(lender="aria", target="bran", ap=0, faces=[3, 10])) == "rules/bid_too_low"
    assert table.refused(GM, x.Lend(lender="bran", target="aria", ap=3, faces=[3, 10])) == "rules/out_of_turn"
    assert table.refused(BOB, x.Lend(lender="aria", target="bran", ap=3, faces=[3, 10])) == "auth/not_your_seat"
    table.do(GM, x.Adjust(contestant="bran", delta=-12, reason="a fall"))
    assert table.refused(GM, x.Lend(lender="aria", target="bran", ap=3, faces=[3, 10])) == "rules/out_of_contest"
    assert table.refused(GM, x.Lend(lender="bran", target="aria", ap=3, faces=[3, 10])) == "rules/out_of_contest"


def test_a_follower_whose_ap_is_in_the_total_lends_or_gives_nothing_more() -> None:
    request = raid()
    aria = request.setup.contestants[0]
    request.setup.contestants[0] = x.Contestant(
        id=aria.id,
        name=aria.name,
        ability=aria.ability,
        rating=aria.rating,
        side=aria.side,
        followers=[x.Follower(name="bran", rating="10", modifier=-2), x.Follower(name="Hound", rating="6")],
    )
    table = Table(request)
    assert table.ap("aria") == 15 + 8 + 6  # followers' values, modifiers included, added at the start
    everyone_attacks(table)
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    assert table.refused(GM, x.Lend(lender="bran", target="aria", ap=3, faces=[3, 10])) == "rules/follower_ap"
    gift = x.Gift(giver="Hound", rating="6", recipient="aria", bid=3, faces=[3, 10])
    assert table.refused(GM, gift) == "rules/follower_ap"


def test_gifting_by_someone_outside_the_contest() -> None:
    table = Table(raid())
    everyone_attacks(table)
    table.do(GM, x.Roll(faces=[19, 19]))  # Aria engages the orc
    table.stand()
    # the miller (14) bids 5 against a resistance of 10: his 1 is a Critical, the resistance's 12 a Failure:
    # a Major Victory, Aria gains the bid
    table.do(GM, x.Gift(giver="the miller", rating="14", recipient="aria", bid=5, faces=[1, 12]))
    event = last(table, x.GiftResolved)
    assert (event.roll.resistance, event.roll.result, event.opponent) == ("10", "Major Victory", "orc")
    assert table.ap("aria") == 20
    # a Complete Defeat hands twice the bid to Aria's opponent
    table.do(GM, x.Gift(giver="the miller", rating="14", recipient="aria", bid=5, faces=[20, 1]))
    assert table.ap("orc") == 22


def test_gifts_the_rules_forbid() -> None:
    table = Table(raid())
    everyone_attacks(table)
    gift = x.Gift(giver="bran", rating="12", recipient="aria", bid=3, opponent="orc", faces=[3, 10])
    assert table.refused(GM, gift) == "rules/in_the_contest"
    too_much = x.Gift(giver="the miller", rating="5W", recipient="aria", bid=6, opponent="orc", faces=[3, 10])
    assert table.refused(GM, too_much) == "rules/bid_too_high"  # at most the giver's target number, 5
    no_opponent = x.Gift(giver="the miller", rating="14", recipient="aria", bid=3, faces=[3, 10])
    assert table.refused(GM, no_opponent) == "rules/no_target"  # Aria has engaged nobody yet


# --- hero points --------------------------------------------------------------------------------------------


def test_the_gm_grants_hero_points_to_player_characters() -> None:
    table = Table(raid())
    table.do(GM, x.GrantHeroPoints(contestant="aria", points=2, reason="a fine speech"))
    assert table.rules.fighters["aria"].hero_points == 2
    assert table.refused(GM, x.GrantHeroPoints(contestant="orc")) == "rules/not_a_pc"
    assert table.refused(ANN, x.GrantHeroPoints(contestant="aria")) == "auth/forbidden"
    assert table.refused(GM, x.GrantHeroPoints(contestant="aria", points=0)) == "rules/bad_delta"
    seen = {
        who: next(c.hero_points for c in view(table.rules, viewer).contestants if c.id == "aria")
        for who, viewer in [
            ("ann", Viewer("ann", "player", frozenset({"aria"}))),
            ("bob", Viewer("bob", "player", frozenset({"bran"}))),
            ("gm", Viewer("gm", "gm")),
        ]
    }
    assert seen == {"ann": 2, "bob": None, "gm": 2}


def test_the_gm_closing_the_window_leaves_a_group_contestant_without_a_target() -> None:
    table = Table(raid())
    declare(table, {"aria": attack("orc")})
    table.do(GM, CloseDeclarations())
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    assert table.refused(GM, x.Roll(faces=[19, 19])) == "rules/no_target"
    table.do(GM, x.ChangeIntent(contestant="bran", intent=attack("wolf")))
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    assert table.rules.actor == "orc"


def test_a_final_action_between_rounds_brings_the_pc_into_the_next_declarations() -> None:
    table = Table(raid(hero_points={"bran": 1}))
    table.do(GM, x.Adjust(contestant="bran", delta=-14, reason="an ambush"))  # -2, before anyone declared
    assert "bran" not in window(table.rules).expected
    table.do(GM, x.FinalAction(contestant="bran", faces=[3, 10]))  # 2 below 0: 3 is a Success, 10 a Failure
    assert table.ap("bran") == 3 and "bran" in window(table.rules).expected
    declare(table, {"aria": attack("orc"), "orc": attack("aria"), "wolf": attack("aria"), "shaman": attack("aria")})
    assert table.rules.phase == "declaring"  # Bran is expected too
    table.do(BOB, Declare(participant="bran", payload=attack("wolf")))
    assert table.rules.phase == "ready"


def test_acting_while_out_is_refused() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=12)
    table.do(GM, x.Roll(faces=[5, 15]))  # the orc at 0
    table.stand()
    for command in [
        x.Delay(contestant="orc"),
        x.PassTurn(contestant="orc"),
        x.Disengage(contestant="orc", opponent="aria", faces=[3, 15]),
        x.Lend(lender="orc", target="wolf", ap=1, faces=[3, 15]),
    ]:
        assert table.refused(GM, command) == "rules/out_of_contest", command


def test_a_free_for_all_ends_when_one_contestant_is_left() -> None:
    request = raid()
    request.setup.contestants[:] = [
        x.Contestant(id=c, name=c, ability="Fight", rating="12") for c in ["aria", "orc", "wolf"]
    ]
    request.seats[:] = request.seats[:2]  # the GM and Ann
    table = Table(request)
    assert table.rules.group and len({f.side for f in table.rules.fighters.values()}) == 3
    table.do(GM, x.Adjust(contestant="orc", delta=-13, reason="falls in the race"))
    assert table.rules.phase == "declaring"  # two sides are still in
    table.do(GM, x.Adjust(contestant="wolf", delta=-25, reason="runs off a cliff"))
    outcome = table.rules.outcome
    assert outcome.winning_side == "aria"
    assert {s.side: (s.result, s.level) for s in outcome.sides} == {
        "aria": ("none", None),  # Aria never engaged either of them
        "orc": ("defeat", "Marginal"),
        "wolf": ("defeat", "Minor"),
    }


def test_a_parting_shot_a_change_of_action_and_a_jump_in_while_out_are_refused() -> None:
    table = Table(raid())
    everyone_attacks(table, aria=12)
    table.do(GM, x.Delay(contestant="orc"))  # the orc waits for a better moment
    table.do(GM, x.Roll(faces=[5, 15]))  # Aria's Success against its Failure: 1 × 12, the orc at 0
    table.stand()
    assert table.ap("orc") == 0 and table.rules.open_shots == {"aria": "orc"}
    # the knocked-out orc has no parting shot, no action left to change, and no turn to jump back into
    assert table.refused(GM, x.PartingShot(contestant="orc", action="a last swing")) == "rules/not_the_victor"
    assert table.refused(GM, x.ChangeIntent(contestant="orc", intent=attack("bran"))) == "rules/out_of_contest"
    assert table.refused(GM, x.AllowChange(contestant="orc")) == "rules/out_of_turn"
    assert table.refused(GM, x.JumpIn(contestant="orc")) == "rules/out_of_contest"
    # the victor put out of the contest before its shot may not take it either
    table.do(GM, x.Adjust(contestant="aria", delta=-20, reason="the mill's roof falls on her"))
    assert table.ap("aria") == -5
    assert table.refused(ANN, x.PartingShot(contestant="aria", action="a last cut")) == "rules/out_of_contest"
    assert table.refused(ANN, x.ChangeIntent(contestant="aria", intent=attack("wolf"))) == "rules/out_of_contest"
