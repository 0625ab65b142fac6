"""The lines people read of an extended contest (notices, the timeline, replays) name its contestants by the
names their setup gave them, never by their ids: in a duel and in a group contest, for every event, for the
GM and for a spectator, and in the texts stored with ids before names were shown."""

from __future__ import annotations

import typing
from collections.abc import Callable

import msgspec
import pytest

from protocol.common import Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import extended as x
from server.rules.extended.ruleset import EXTENDED
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table
from tests.rules.extended.group import declare, raid
from tests.rules.lines import Line, assert_named, kinds, lines

DUEL_NAMES = {"aria": "Sir Aria", "grisk-the-orc": "Grisk the Orc"}
RAID_NAMES = {
    "aria": "Sir Aria",
    "bran": "Bran of the Mill",
    "orc": "Grisk the Orc",
    "wolf": "the Grey Wolf",
    "shaman": "Old Mother Shaman",
}


def duel(hero_points: int = 1) -> CreateContest:
    """Ann's Sir Aria (id ``aria``) against Bob's Grisk the Orc (id ``grisk-the-orc``), physical dice."""
    return CreateContest(
        ruleset="extended",
        title="Duel at the ford",
        dice="physical",
        contest="ford",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["grisk-the-orc"])],
        setup=x.ExtendedSetup(
            prize="the ford",
            contestants=[
                x.Contestant(id="aria", name="Sir Aria", ability="Sword", rating="15", hero_points=hero_points),
                x.Contestant(
                    id="grisk-the-orc", name="Grisk the Orc", ability="Axe", rating="12", hero_points=hero_points
                ),
            ],
        ),
    )


def named_raid(**setup: typing.Any) -> Table:
    """The raid on the mill (Sir Aria and Bran against three raiders), each contestant named otherwise than its
    id."""
    request = raid(**setup)
    assert isinstance(request.setup, x.ExtendedSetup)
    contestants = [msgspec.structs.replace(c, name=RAID_NAMES[c.id]) for c in request.setup.contestants]
    return Table(
        msgspec.structs.replace(request, setup=msgspec.structs.replace(request.setup, contestants=contestants))
    )


def strike(target: str, bid: int = 3, daring: x.Daring = "bold") -> x.Intent:
    return x.Intent(action="a blow", bid=bid, daring=daring, targets=[target])


def everyone_strikes(table: Table, **bids: int) -> None:
    targets = {"aria": "orc", "bran": "wolf", "orc": "aria", "wolf": "bran", "shaman": "aria"}
    declare(table, {c: strike(t, bids.get(c, 3)) for c, t in targets.items()})


# --- the plays ------------------------------------------------------------------------------------------


def a_duel() -> Table:
    """A hero point granted, a proposed bid, hero points spent and passed, a transfer each way, an adjustment,
    the victory and a parting shot."""
    table = Table(duel())
    table.do(GM, x.GrantHeroPoints(contestant="aria", points=1, reason="a fine speech"))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="a feint", bid=2)))
    table.do(BOB, Declare(participant="grisk-the-orc", payload=x.Intent(action="a wild swing", bid=3)))
    table.do(GM, x.ProposeBid(contestant="aria", bid=4))
    table.do(ANN, x.AcceptBid(contestant="aria"))
    table.do(GM, x.Roll(faces=[16, 16]))  # Failure against Failure, equal dice
    table.do(ANN, x.SpendHeroPoint(contestant="aria"))  # her Success: Grisk loses 4
    table.do(BOB, x.PassHeroPoint(contestant="grisk-the-orc"))
    table.do(GM, x.Roll(faces=[1, 20]))  # Grisk's Critical against her Fumble: she transfers 3 × 3
    table.stand()
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    table.do(GM, x.Adjust(contestant="grisk-the-orc", delta=-1, reason="a slip on the ice"))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="a lunge", bid=6)))
    table.do(BOB, Declare(participant="grisk-the-orc", payload=x.Intent(bid=1)))
    table.do(GM, x.Roll(faces=[1, 20]))  # her Critical against his Fumble: he transfers 3 × 6, to -2
    table.stand()
    table.do(BOB, x.PassHeroPoint(contestant="grisk-the-orc"))
    assert table.rules.outcome is not None and table.rules.outcome.winner == "aria"
    table.do(ANN, x.PartingShot(contestant="aria", bid=2, action="a last cut"))
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    table.do(BOB, x.PassHeroPoint(contestant="grisk-the-orc"))
    assert table.rules.phase == "decided" and table.ap("grisk-the-orc") == -4
    return table


def a_failed_parting_shot() -> Table:
    table = Table(duel(hero_points=0))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(bid=12)))
    table.do(BOB, Declare(participant="grisk-the-orc", payload=x.Intent(bid=1)))
    table.do(GM, x.Roll(faces=[5, 15]))  # Grisk at 0
    table.stand()
    table.do(ANN, x.PartingShot(contestant="aria", bid=4))
    table.do(GM, x.Roll(faces=[16, 1]))  # she fails, his Critical: she transfers 2 × 4 and he is back
    table.stand()
    assert table.rules.outcome is None
    return table


def an_ordered_round() -> Table:
    """The GM ranks a daring and orders the round by it; Bran delays, then jumps back in."""
    table = named_raid()
    declare(
        table,
        {
            "aria": strike("orc", 3, "reckless"),
            "bran": strike("wolf", 5, "daring"),
            "orc": strike("aria", 7, "daring"),
            "wolf": strike("bran", 9, "cautious"),
            "shaman": strike("aria", 2, "bold"),
        },
    )
    table.do(GM, x.RankDaring(contestant="wolf", daring="reckless"))
    table.do(GM, x.OrderBy(mode="daring"))
    table.do(BOB, x.Delay(contestant="bran"))
    table.do(GM, x.Roll(faces=[19, 19]))  # the wolf's exchange
    table.stand()
    table.do(BOB, x.JumpIn(contestant="bran"))
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    return table


def a_retargeted_action() -> Table:
    """Sir Aria knocks the wolf out; Bran, who had singled it out, changes his action with the GM's leave."""
    table = named_raid()
    declare(
        table,
        {
            "aria": strike("wolf", 12),
            "bran": strike("wolf"),
            "orc": strike("aria"),
            "wolf": strike("bran"),
            "shaman": strike("aria"),
        },
    )
    table.do(GM, x.Roll(faces=[5, 20]))
    table.stand()
    table.do(GM, x.AllowChange(contestant="bran"))
    table.do(BOB, x.ChangeIntent(contestant="bran", intent=strike("orc")))
    table.do(GM, x.Roll(faces=[5, 15]))
    table.stand()
    return table


def a_disengagement() -> Table:
    """Sir Aria leaves the fight, the raiders who singled her out pass, and she rejoins in round 2."""
    table = named_raid()
    everyone_strikes(table)
    table.do(GM, x.Disengage(contestant="aria", opponent="orc", faces=[3, 15]))
    for _ in range(4):
        actor = table.rules.actor
        table.do(GM, x.PassTurn(contestant=actor) if actor in ("orc", "shaman") else x.Roll(faces=[19, 19]))
        table.stand()
    table.do(ANN, x.Rejoin(contestant="aria"))
    return table


def a_loan_and_a_gift() -> Table:
    table = named_raid()
    everyone_strikes(table)
    table.do(GM, x.Lend(lender="aria", target="bran", ap=6, faces=[3, 10]))
    table.do(GM, x.Roll(faces=[19, 19]))  # Bran engages the wolf
    table.stand()
    table.do(GM, x.Gift(giver="the miller", rating="14", recipient="bran", bid=5, faces=[1, 12]))
    table.do(GM, x.Disengage(contestant="orc", opponent="aria", faces=[16, 2]))  # fails: AP to Sir Aria
    return table


def a_final_action() -> Table:
    table = named_raid(hero_points={"bran": 1})
    everyone_strikes(table, wolf=10)
    for _ in range(3):  # Sir Aria, Bran and the orc: ties
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
        if table.rules.exchange is not None:
            table.do(BOB, x.PassHeroPoint(contestant="bran"))
    table.do(GM, x.Roll(faces=[1, 20]))  # the wolf's Critical against Bran's Fumble: 3 × 10 transferred
    table.stand()
    table.do(BOB, x.PassHeroPoint(contestant="bran"))
    table.do(GM, x.GrantHeroPoints(contestant="bran", points=1, reason="a song of the mill"))
    table.do(GM, x.FinalAction(contestant="bran", faces=[3, 19]))
    assert table.rules.fighters["bran"].in_contest
    return table


def a_group_tie() -> Table:
    table = named_raid()
    everyone_strikes(table, aria=5)
    table.do(GM, x.Roll(faces=[20, 20]))  # Fumble against Fumble: both lose ½ the bid
    table.stand()
    table.do(GM, x.Confirm(group_tie=True))
    return table


def a_declined_parting_shot() -> Table:
    table = named_raid()
    everyone_strikes(table, shaman=8)
    table.do(GM, x.Adjust(contestant="aria", delta=-7, reason="an arrow"))
    for _ in range(4):
        table.do(GM, x.Roll(faces=[19, 19]))
        table.stand()
    table.do(GM, x.Roll(faces=[5, 16]))  # the shaman takes Sir Aria to 0
    table.stand()
    table.do(GM, x.DeclinePartingShot(contestant="shaman"))
    return table


def a_group_victory() -> Table:
    table = named_raid()
    everyone_strikes(table, aria=15)
    table.do(GM, x.Roll(faces=[5, 20]))  # Sir Aria takes the orc to -18
    table.stand()
    table.do(GM, x.Roll(faces=[19, 19]))
    table.stand()
    for contestant, delta in [("wolf", -35), ("shaman", -12)]:
        table.do(GM, x.Adjust(contestant=contestant, delta=delta, reason="the mill collapses"))
    assert table.rules.outcome is not None and table.rules.outcome.winning_side == "heroes"
    return table


DUELS: list[Callable[[], Table]] = [a_duel, a_failed_parting_shot]
GROUPS: list[Callable[[], Table]] = [
    an_ordered_round,
    a_retargeted_action,
    a_disengagement,
    a_loan_and_a_gift,
    a_final_action,
    a_group_tie,
    a_declined_parting_shot,
    a_group_victory,
]


@pytest.mark.parametrize("play", DUELS + GROUPS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("viewer", [GM, ANN, SPECTATOR], ids=lambda a: a.principal)
def test_every_line_names_the_contestants_and_shows_no_id(play: Callable[[], Table], viewer: typing.Any) -> None:
    table = play()
    names = DUEL_NAMES if play in DUELS else RAID_NAMES
    assert EXTENDED.names(table.rules) == names
    told = lines(table, viewer)
    assert_named(told, names)
    assert any(n in line.named for line in told for n in names.values())


def test_every_event_of_the_ruleset_is_among_the_lines_checked() -> None:
    told: list[Line] = [line for play in DUELS + GROUPS for line in lines(play())]
    tags = {str(t.__struct_config__.tag) for t in typing.get_args(x.Event)}
    assert tags <= kinds(told), tags - kinds(told)


def by_tag(play: Callable[[], Table], kind: type[typing.Any]) -> list[str]:
    return [line.named for line in lines(play()) if isinstance(line.event, kind)]


def test_the_lines_read_as_a_player_would_say_them() -> None:
    assert by_tag(a_duel, x.RoundStarted)[0] == "round 1 begins: Sir Aria, Grisk the Orc"
    assert by_tag(a_duel, x.BidProposed) == ["the GM proposes a bid of 4 for Sir Aria"]
    assert by_tag(a_duel, x.ExchangeApplied)[:2] == [
        "exchange 1: Grisk the Orc loses 4 AP",
        "exchange 2: Sir Aria transfers 9 AP to Grisk the Orc",
    ]
    assert by_tag(a_duel, x.ExchangeRolled)[0] == (
        "exchange 1: Sir Aria bids 4; Sir Aria rolled 16 (Failure), Grisk the Orc rolled 16 (Failure)"
    )
    assert by_tag(a_duel, x.ApAdjusted) == ["the GM adjusts Grisk the Orc's AP by -1: a slip on the ice"]
    assert by_tag(a_duel, x.ContestDecided)[0] == "Sir Aria wins (Marginal victory over Grisk the Orc): Hurt"
    assert by_tag(a_failed_parting_shot, x.ContestResumed) == ["Grisk the Orc is back in the contest"]
    assert by_tag(a_group_tie, x.ExchangeApplied) == [
        "exchange 1: both fumble: Sir Aria and Grisk the Orc each lose 3 AP"
    ]
    assert by_tag(a_disengagement, x.DisengageRolled) == [
        "Sir Aria tries to disengage from Grisk the Orc: 3 (Success) against 15 (Failure) vs 12: Minor Victory; "
        "withdraws"
    ]
    assert by_tag(a_retargeted_action, x.IntentChanged) == [
        "Bran of the Mill changes their action: “a blow”, bid 3, bold, against Grisk the Orc"
    ]
    decided = by_tag(a_group_victory, x.ContestDecided)[0]
    assert decided.startswith("side heroes wins; Sir Aria Minor victory (Pumped); ")


def test_the_opponents_rating_unseen_is_named_by_the_opponents_name() -> None:
    table = a_disengagement()
    seen = [line.named for line in lines(table, SPECTATOR) if isinstance(line.event, x.DisengageRolled)]
    assert seen == [
        "Sir Aria tries to disengage from Grisk the Orc: 3 (Success) against 15 (Failure) vs Grisk the Orc's "
        "rating: Minor Victory; withdraws"
    ]


# --- texts stored with ids ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "read"),
    [
        ("grisk-the-orc loses 7 AP", "Grisk the Orc loses 7 AP"),
        ("aria transfers 3 AP to grisk-the-orc", "Sir Aria transfers 3 AP to Grisk the Orc"),
        (
            "both fumble: aria and grisk-the-orc each lose 2 AP",
            "both fumble: Sir Aria and Grisk the Orc each lose 2 AP",
        ),
        (
            "grisk-the-orc wins, but aria's handicap cuts the stake to 0: no AP moves",
            "Grisk the Orc wins, but Sir Aria's handicap cuts the stake to 0: no AP moves",
        ),
        ("aria wins the asymmetrical exchange", "Sir Aria wins the asymmetrical exchange"),
        ("unrelated action: Minor Victory", "unrelated action: Minor Victory"),
        ("tie", "tie"),
    ],
)
def test_an_exchange_stored_with_ids_reads_with_names(stored: str, read: str) -> None:
    """The applied exchanges already in stored logs keep their bytes; their lines name the contestants."""
    event = x.ExchangeApplied(exchange=3, winner="aria", loser="grisk-the-orc", lost=7, gained=0, result=stored)
    before = msgspec.json.encode(event)
    assert EXTENDED.describe(event, DUEL_NAMES) == f"exchange 3: {read}"
    assert msgspec.json.encode(event) == before
    assert EXTENDED.describe(event, {}) == f"exchange 3: {stored}"


def test_a_logged_exchange_keeps_the_ids_it_was_stored_with() -> None:
    """Names are for the lines people read: the stored events and their hashes are as they were."""
    table = a_duel()
    applied = [e.event for e in table.log if isinstance(e.event, x.ExchangeApplied)]
    assert applied[0].result == "grisk-the-orc loses 4 AP"


def test_words_the_gm_typed_are_never_renamed() -> None:
    """A reason the GM typed stays as typed, though it holds an id."""
    event = x.ApAdjusted(contestant="grisk-the-orc", delta=-2, reason="aria trips grisk-the-orc")
    assert EXTENDED.describe(event, DUEL_NAMES) == "the GM adjusts Grisk the Orc's AP by -2: aria trips grisk-the-orc"
