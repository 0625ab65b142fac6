"""The step after a roll tells nobody who holds hero points.

Two contests that differ only in whether a PC holds a hero point are played with the same commands; whoever
may not know that PC's hero points (a spectator, the opposing player) must receive the same views, patches
and notices, and the log must have the same shape, in both. The GM closes the step early with a confirm;
the ``when_it_matters`` window keeps the faster flow that tells the table who holds hero points.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import msgspec
import pytest

from protocol.common import Actor, Seat
from protocol.events import CreateContest, Declare, Envelope
from protocol.patch import diff
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import scored as s
from server.engine.names import Naming
from server.engine.views import shown_event, viewer_for
from server.feed.notices import notice_frame
from server.net.auth import SPECTATOR
from server.service import ContestService
from server.store.memory import MemoryStore
from tests.engine.table import ANN, BOB, GM, Table, duel
from tests.net.duel import ford

WATCHER = Actor(SPECTATOR, "spectator")

# Aria (15) against Bob's orc (12), physical dice. Each step: who sends what.
EXTENDED_PLAY: list[tuple[Actor, Any]] = [
    (ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4))),
    (BOB, Declare(participant="orc", payload=x.Intent(action="swing", bid=3))),
    # Aria fails (17), the orc succeeds (5): a hero point would lift her to Success and change the exchange
    (GM, x.Roll(faces=[17, 5])),
    (ANN, x.PassHeroPoint(contestant="aria")),
    (BOB, x.PassHeroPoint(contestant="orc")),
    # the orc's exchange: Aria's Critical (1) against its Failure (16); nothing to gain for her
    (GM, x.Roll(faces=[16, 1])),
    (BOB, x.PassHeroPoint(contestant="orc")),
    (ANN, x.PassHeroPoint(contestant="aria")),
]


def pvp(aria_points: int) -> CreateContest:
    """Ann's Aria against Bob's orc; the orc holds one hero point, Aria ``aria_points``."""
    request = duel(hero_points=aria_points, pvp=True)
    aria, orc = request.setup.contestants
    setup = msgspec.structs.replace(request.setup, contestants=[aria, msgspec.structs.replace(orc, hero_points=1)])
    return msgspec.structs.replace(request, setup=setup)


def herowars_duel(hero_points: int) -> CreateContest:
    return ford(hero_points, title="", contest="duel")


HEROWARS_PLAY: list[tuple[Actor, Any]] = [
    (ANN, Declare(participant="erik", payload=h.Intent(action="charge", bid=10))),
    (BOB, Declare(participant="jonas", payload=h.Intent(action="hold the ford", bid=3))),
    (GM, h.Roll(faces=[17, 12])),  # Failure against Success: a hero point would make it Success against Success
    (ANN, h.PassHeroPoint(contestant="erik")),
    (BOB, h.PassHeroPoint(contestant="jonas")),
]


async def seen_by(request: CreateContest, play: list[tuple[Actor, Any]], who: Actor) -> dict[str, list[Any]]:
    """Everything ``who`` receives while ``play`` runs: the view after each command, the patches between
    them, one notice per event, and the type of every event it is shown."""
    service = ContestService(MemoryStore())
    await service.create(GM, request)
    contest = request.contest or "duel"
    viewer = viewer_for(who, request.seats)
    views = [msgspec.to_builtins(await service.view(contest, who))]
    for i, (actor, command) in enumerate(play):
        await service.execute(contest, actor, f"c{i}", command)
        views.append(msgspec.to_builtins(await service.view(contest, who)))
    ruleset, _ = await service.load(contest)
    notices: list[Any] = []
    kinds: list[Any] = []
    for envelope in await service.events(contest):
        frame = notice_frame(ruleset, None, envelope, viewer, Naming({}, {}), contest)
        notices.append(None if frame is None else {k: v for k, v in json.loads(frame).items() if k != "at"})
        shown = shown_event(ruleset, None, envelope, viewer)
        kinds.append(None if shown is None else type(shown).__struct_config__.tag)
    seen = {
        "views": views,
        "patches": [msgspec.to_builtins(diff(a, b)) for a, b in itertools.pairwise(views)],
        "notices": notices,
        "events": kinds,
    }
    return {part: _unsalted(value) for part, value in seen.items()}


def _unsalted(value: Any) -> Any:
    """Seal commitments hash a random salt: they differ between any two plays and are masked."""
    return json.loads(re.sub(r"[0-9a-f]{12,64}", "<hash>", json.dumps(value)))


@pytest.mark.parametrize("who", [WATCHER, BOB], ids=["spectator", "opposing player"])
async def test_an_extended_contest_looks_the_same_whether_or_not_aria_holds_a_hero_point(who: Actor) -> None:
    holding = await seen_by(pvp(1), EXTENDED_PLAY, who)
    empty = await seen_by(pvp(0), EXTENDED_PLAY, who)
    assert len(holding["events"]) == len(empty["events"])
    for part in ("events", "notices", "patches", "views"):
        assert holding[part] == empty[part], part
    # the step really was there: both players answered before each exchange was applied
    assert holding["events"].count("extended.hero_point_passed") == 4
    assert holding["events"].count("extended.exchange_applied") == 2


@pytest.mark.parametrize("who", [WATCHER, BOB], ids=["spectator", "opposing player"])
async def test_a_hero_wars_contest_looks_the_same_whether_or_not_erik_holds_a_hero_point(who: Actor) -> None:
    holding = await seen_by(herowars_duel(1), HEROWARS_PLAY, who)
    empty = await seen_by(herowars_duel(0), HEROWARS_PLAY, who)
    for part in ("events", "notices", "patches", "views"):
        assert holding[part] == empty[part], part
    assert holding["events"].count("herowars.exchange_applied") == 1


SCORED_PLAY: list[tuple[Actor, Any]] = [
    (GM, s.StartRound(initiative="aria", responder="ogre")),
    (ANN, Declare(participant="aria", payload=s.Tactic())),
    (GM, Declare(participant="ogre", payload=s.Tactic())),
    (GM, s.Roll(faces=[16, 5])),  # Aria misses, the Ogre hits: a story point would make it 1 – 1
    (ANN, s.KeepStoryPoints(contestant="aria")),
]


@pytest.mark.parametrize("who", [WATCHER, BOB], ids=["spectator", "another player"])
async def test_a_scored_sequence_looks_the_same_whether_or_not_aria_holds_story_points(who: Actor) -> None:
    from tests.rules.scored.table import heroes

    holding = await seen_by(heroes(story_points=2), SCORED_PLAY, who)
    empty = await seen_by(heroes(story_points=0), SCORED_PLAY, who)
    for part in ("events", "notices", "patches", "views"):
        assert holding[part] == empty[part], part
    assert holding["events"].count("scored.contest_resolved") == 1


def test_the_exchange_waits_for_each_players_answer_and_shows_whom_it_waits_for() -> None:
    from server.engine.views import contest_view

    table = Table(duel(hero_points=0, pvp=True))
    table.declare(x.Intent(bid=4), x.Intent(bid=3), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[17, 5]))
    assert table.rules.phase == "rolled"
    seats = table.contest.created.seats
    watcher = contest_view(table.ruleset, table.contest, viewer_for(WATCHER, seats)).rules.exchange
    assert watcher.answers_pending == ["aria", "orc"] and watcher.hero_points_pending == []
    # nobody holds a hero point: spending is refused, letting it stand is the answer
    assert table.refused(ANN, x.SpendHeroPoint(contestant="aria")) == "rules/no_hero_point"
    assert table.refused(BOB, x.PassHeroPoint(contestant="aria")) == "auth/not_your_seat"
    table.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert table.refused(ANN, x.PassHeroPoint(contestant="aria")) == "rules/out_of_turn"  # answered once
    assert table.rules.phase == "rolled" and table.rules.exchange.waiting == ["orc"]
    table.do(BOB, x.PassHeroPoint(contestant="orc"))
    assert table.rules.phase == "ready" and table.ap("aria") == 15 - 4  # Failure against Success: 1 × 4


def test_the_gm_confirm_closes_the_window_before_everyone_has_answered() -> None:
    table = Table(duel(hero_points=1, pvp=True))
    table.declare(x.Intent(bid=4), x.Intent(bid=3), orc_actor=BOB)
    table.do(GM, x.Roll(faces=[17, 5]))
    assert table.rules.exchange.waiting == ["aria", "orc"]
    assert table.refused(ANN, x.Confirm()) == "auth/forbidden"
    table.do(GM, x.Confirm())
    assert table.rules.phase == "ready" and table.rules.exchange is None
    assert table.ap("aria") == 11 and table.rules.fighters["aria"].hero_points == 1
    assert table.refused(ANN, x.PassHeroPoint(contestant="aria")) == "rules/out_of_phase"


def kinds(batch: list[Envelope]) -> list[str]:
    return [str(type(e.event).__struct_config__.tag) for e in batch]


def test_an_exchange_between_gm_contestants_applies_at_once() -> None:
    table = Table(msgspec.structs.replace(duel(hero_points=0), seats=[Seat("gm", "gm")]))
    table.do(GM, Declare(participant="aria", payload=x.Intent(bid=4)))
    table.do(GM, Declare(participant="orc", payload=x.Intent(bid=3)))
    batch = table.do(GM, x.Roll(faces=[17, 5]))  # nobody's player to ask: the GM's contestants hold none
    assert kinds(batch)[:2] == ["extended.exchange_rolled", "extended.exchange_applied"]


def test_an_unrelated_action_needs_no_answer() -> None:
    from tests.rules.extended.group import attack, declare, raid

    table = Table(raid(hero_points={"aria": 1}))
    declare(
        table,
        {
            "aria": x.Intent(action="mend the wall", kind="unrelated"),
            "bran": attack("wolf", 3),
            "orc": attack("aria", 3),
            "wolf": attack("bran", 2),
            "shaman": attack("aria", 2),
        },
    )
    table.do(GM, x.SetOrder(order=["aria", "bran", "orc", "wolf", "shaman"]))
    table.do(GM, x.Roll())  # Aria's unrelated action, no resistance: no hero point can matter to it
    assert table.rules.exchange is None and table.rules.actor == "bran"
    table.do(GM, x.Roll(faces=[5, 16]))  # Bran (a PC) against the wolf: Bob answers
    assert table.rules.phase == "rolled" and table.rules.exchange.waiting == ["bran"]


def test_when_it_matters_keeps_the_fast_flow() -> None:
    fast = Table(duel(hero_points=1, hero_point_window="when_it_matters"))
    fast.declare(x.Intent(bid=4), x.Intent(bid=3))
    fast.do(GM, x.Roll(faces=[17, 5]))  # Aria's hero point could lift her Failure: she is asked
    assert fast.rules.exchange.waiting == ["aria"]
    fast.do(ANN, x.PassHeroPoint(contestant="aria"))
    assert fast.rules.phase == "ready" and fast.ap("aria") == 11
    batch = fast.do(GM, x.Roll(faces=[16, 1]))  # Aria's Critical: nothing to gain, applied with the roll
    assert kinds(batch)[:2] == ["extended.exchange_rolled", "extended.exchange_applied"]
    # which tells whoever watches who holds hero points: without any, the first exchange applies at once
    none = Table(duel(hero_points=0, hero_point_window="when_it_matters"))
    none.declare(x.Intent(bid=4), x.Intent(bid=3))
    assert kinds(none.do(GM, x.Roll(faces=[17, 5])))[:2] == [
        "extended.exchange_rolled",
        "extended.exchange_applied",
    ]


def test_hero_wars_offers_a_hero_point_only_when_it_could_change_the_result() -> None:
    table = Table(herowars_duel(1))
    table.do(ANN, Declare(participant="erik", payload=h.Intent(bid=10)))
    table.do(BOB, Declare(participant="jonas", payload=h.Intent(bid=3)))
    table.do(GM, h.Roll(faces=[1, 12]))  # Erik's Critical cannot go higher
    assert table.rules.exchange.eligible == [] and table.rules.exchange.waiting == ["erik", "jonas"]
    assert table.refused(ANN, h.SpendHeroPoint(contestant="erik")) == "rules/hero_point_no_effect"
    table.do(ANN, h.PassHeroPoint(contestant="erik"))
    table.do(BOB, h.PassHeroPoint(contestant="jonas"))
    assert table.rules.phase == "ready" and table.rules.fighters["erik"].hero_points == 1
