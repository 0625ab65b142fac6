"""Secrecy faults found from outside: a replay's spectator must be the live server's spectator, and a
spectator must not learn who still holds hero points."""

from __future__ import annotations

import uuid

import msgspec

from protocol import extended as x
from protocol.common import Actor, Seat
from protocol.events import Declare
from server.audit import parse_viewer, render_replay
from server.net.auth import SPECTATOR
from server.service import ContestService
from server.store import MemoryStore
from tests.engine.table import GM, duel


async def test_replay_as_spectator_never_shows_a_seat_named_spectator_its_own_secrets() -> None:
    service = ContestService(MemoryStore())
    contest = f"named-{uuid.uuid4().hex[:8]}"
    request = msgspec.structs.replace(
        duel(), contest=contest, seats=[Seat("gm", "gm"), Seat("spectator", "player", ["aria"])]
    )
    await service.create(GM, request)
    seat = Actor("spectator", "player")
    await service.execute(contest, seat, "d1", Declare(participant="aria", payload=x.Intent(action="secret-plan")))
    envelopes = await service.events(contest)
    assert parse_viewer("spectator", envelopes[0].event).principal == SPECTATOR  # type: ignore[arg-type]
    assert "secret-plan" not in render_replay(envelopes, None, "spectator", "text")
    assert "secret-plan" in render_replay(envelopes, None, "player:spectator", "text")


async def test_a_spectator_does_not_see_who_may_still_spend_a_hero_point() -> None:
    service = ContestService(MemoryStore())
    contest = f"hero-{uuid.uuid4().hex[:8]}"
    await service.create(GM, msgspec.structs.replace(duel(hero_points=1), contest=contest))
    ann = Actor("ann", "player")
    await service.execute(contest, ann, "d1", Declare(participant="aria", payload=x.Intent(action="lunge")))
    await service.execute(contest, GM, "d2", Declare(participant="orc", payload=x.Intent(action="swing")))
    await service.execute(contest, GM, "r1", x.Roll(faces=[3, 10]))
    for viewer, pending in [(GM, ["aria"]), (ann, ["aria"]), (Actor(SPECTATOR, "spectator"), [])]:
        exchange = (await service.view(contest, viewer)).rules.exchange
        assert exchange is not None and exchange.hero_points_pending == pending, viewer
