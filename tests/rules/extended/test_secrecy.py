"""What the notices of an extended contest tell each viewer: a contestant's rating and hero points are its
controller's and the GM's, in notices as in views."""

from __future__ import annotations

from protocol.common import Actor
from protocol.events import Command
from protocol.rulesets import extended as x
from server.engine.names import naming
from server.engine.views import shown_event, viewer_for
from server.feed.notices import notice_line
from server.rules.extended.ruleset import EXTENDED
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table, duel
from tests.rules.extended.group import raid
from tests.rules.extended.test_group import everyone_attacks

EVERYONE = [GM, ANN, BOB, SPECTATOR]


def notices(table: Table, actor: Actor, command: Command) -> dict[str, str | None]:
    """The line each viewer gets for the first event the command stores."""
    before = table.rules
    envelope = table.do(actor, command)[0]
    seats = table.contest.created.seats
    lines = {
        a.principal: notice_line(EXTENDED, before, envelope, viewer_for(a, seats), naming(EXTENDED, seats, before))
        for a in EVERYONE
    }
    return {who: None if line is None else line.text for who, line in lines.items()}


def test_a_disengagement_against_the_opponents_rating_tells_only_the_gm_that_rating() -> None:
    table = Table(raid())  # the orc, the GM's, fights at 12
    everyone_attacks(table)
    # Aria's 3 is a Success, the orc's 15 a Failure: a Minor Victory
    seen = notices(table, GM, x.Disengage(contestant="aria", opponent="orc", faces=[3, 15]))
    rolled = "Aria tries to disengage from Orc: 3 (Success) against 15 (Failure) vs {}: Minor Victory; withdraws"
    assert seen == {
        "gm": rolled.format("12"),
        "ann": rolled.format("Orc's rating"),
        "bob": rolled.format("Orc's rating"),
        "spectator": rolled.format("Orc's rating"),
    }


def test_a_resistance_typed_for_the_disengagement_is_told_to_everyone() -> None:
    table = Table(raid())
    everyone_attacks(table)
    seen = notices(table, GM, x.Disengage(contestant="aria", opponent="orc", resistance="9", faces=[3, 15]))
    assert {who: "vs 9:" in text for who, text in seen.items() if text is not None} == dict.fromkeys(
        ["gm", "ann", "bob", "spectator"], True
    )


def test_the_player_of_the_opponent_sees_its_rating_and_the_one_who_leaves_does_not() -> None:
    table = Table(duel(pvp=True))  # Ann's Aria against Bob's orc, who fights at 12
    table.declare(orc_actor=BOB)
    seen = notices(table, GM, x.Disengage(contestant="aria", faces=[3, 15]))
    told = {who: None if text is None else ("vs 12:" in text, "vs Orc's rating:" in text) for who, text in seen.items()}
    assert told == {"gm": (True, False), "bob": (True, False), "ann": (False, True), "spectator": (False, True)}


def test_hero_points_granted_are_told_whole_only_to_the_gm_and_the_contestants_player() -> None:
    table = Table(raid())
    seen = notices(table, GM, x.GrantHeroPoints(contestant="aria", points=2, reason="a fine speech"))
    line = "the GM grants Aria 2 hero point(s): a fine speech"
    # everyone else is told that a grant happened (the version moved on), not to whom, how many or why
    neutral = "the GM grants hero points"
    assert seen == {"gm": line, "ann": line, "bob": neutral, "spectator": neutral}


def test_others_receive_the_grant_naming_no_one_so_their_timeline_has_no_unexplained_step() -> None:
    table = Table(raid())
    before = table.rules
    envelope = table.do(GM, x.GrantHeroPoints(contestant="aria", points=2, reason="a fine speech"))[0]
    seats = table.contest.created.seats
    shown = {a.principal: shown_event(EXTENDED, before, envelope, viewer_for(a, seats)) for a in EVERYONE}
    hidden = x.HeroPointsGranted(contestant=None, points=None, reason="")
    assert shown["bob"] == shown["spectator"] == hidden
    assert shown["ann"] == shown["gm"] == x.HeroPointsGranted(contestant="aria", points=2, reason="a fine speech")
