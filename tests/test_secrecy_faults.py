"""Secrecy faults found from outside: a replay's spectator must be the live server's spectator, a spectator must
not learn who still holds hero points, and no line of table talk reaches anyone it is not for."""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

import msgspec
import pytest

from clients.python.client import AgonClient
from protocol.codec import encode
from protocol.common import AUDITOR, Actor, Seat
from protocol.events import Declare
from protocol.messages import Follow
from protocol.presence import Presence, SeatPresence
from protocol.rulesets import extended as x
from protocol.talk import TalkSetting
from server.audit import parse_viewer, render_replay
from server.net.auth import SPECTATOR
from server.net.settings import Settings
from server.service import ContestService
from server.serving import agon_server
from server.store import MemoryStore
from server.talklog import TalkLog
from tests.conformance.secrecy import leaked, talk_secrets
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


def test_presence_carries_only_the_seats_everyone_reads_and_how_many_watch() -> None:
    """Presence is told to everyone at the table, spectators included: it may carry only what the contest's first
    event tells every viewer (its seats: ids, roles, names, contestants), whether each is held, and counts. A new
    member must be reviewed for secrecy here first (the network tests scan every presence frame too)."""
    assert Presence.__struct_fields__ == ("contest", "seats", "spectators", "auditors")
    assert SeatPresence.__struct_fields__ == ("seat", "role", "here", "contestants", "name")
    assert set(SeatPresence.__struct_fields__) - {"here"} <= set(Seat.__struct_fields__) | {"seat"}


@pytest.mark.parametrize(("spectators", "auditors_whispers"), [(False, False), (True, False), (False, True)])
async def test_no_line_of_table_talk_reaches_a_follower_a_log_line_or_an_export_it_is_not_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, spectators: bool, auditors_whispers: bool
) -> None:
    """Every line said (to the table, whispered by a player to the GM and by the GM to a player, plain and rolled)
    carries a text of its own; each is looked for in every frame every follower received (two GM seats, both
    players, a spectator, an auditor, a follower who joined afterwards, the followers of another contest), in
    every log line of the server, in the timelines and in the export."""
    caplog.set_level(logging.INFO)  # as `agon serve` logs
    setting = TalkSetting(spectators=spectators, auditors_whispers=auditors_whispers)
    store = MemoryStore()
    server = agon_server(Settings(port=0, data_dir=tmp_path, secret=b"talk-secrecy-test-secret-0123456"), store)
    await server.start()
    try:
        gm = await AgonClient.connect(server.ws_url, record_frames=True)
        request = msgspec.structs.replace(
            duel(pvp=True),
            seats=[
                Seat("gm", "gm"),
                Seat("gm2", "gm"),
                Seat("ann", "player", ["aria"]),
                Seat("bob", "player", ["orc"]),
            ],
            talk=setting,
        )
        created = await gm.create(request)
        other = await gm.create(msgspec.structs.replace(request, title="next door", contest="next-door"))
        contest, tokens = created.contest, created.invitations
        await gm.follow(contest, tokens.gm)
        auditor = (await gm.invite(contest, AUDITOR)).token

        async def join(contest_id: str, token: str) -> AgonClient:
            return await AgonClient.connect(server.ws_url, follow=[Follow(contest_id, token)], record_frames=True)

        followers = {
            ("gm", "gm"): gm,
            ("gm2", "gm"): await join(contest, tokens.seats["gm2"]),
            ("ann", "player"): await join(contest, tokens.seats["ann"]),
            ("bob", "player"): await join(contest, tokens.seats["bob"]),
            (SPECTATOR, "spectator"): await join(contest, tokens.spectator),
            (AUDITOR, "auditor"): await join(contest, auditor),
        }
        next_door = [
            await join(other.contest, other.invitations.gm),
            await join(other.contest, other.invitations.spectator),
        ]
        said = [
            await followers["ann", "player"].say(contest, "TABLE-LINE-ann-4411"),
            await followers["ann", "player"].say(contest, "WHISPER-ann-to-gm-7719", to="gm"),
            await followers["gm", "gm"].say(contest, "/roll 2d6+1 WHISPER-ROLL-gm-to-bob-2207", to="bob"),
            await followers["bob", "player"].say(contest, "/r d20 TABLE-ROLL-bob-9031"),
            await followers["gm2", "gm"].say(contest, "WHISPER-gm2-to-ann-5150", to="ann"),
        ]
        followers[SPECTATOR, "spectator"].frames.clear()  # a spectator who joined afterwards: its history only
        await followers[SPECTATOR, "spectator"].reconnect()
        followers[SPECTATOR + "-late", "spectator"] = await join(contest, tokens.spectator)
        for client in [*followers.values(), *next_door]:
            await client.ping()  # what was on its way has arrived

        everything = {line.text.encode() for line in said}
        for (principal, role), client in followers.items():
            secrets = talk_secrets(said, principal.removesuffix("-late"), role, setting)
            leaks = leaked("".join(client.frames).encode(), secrets)
            assert not leaks, f"{principal} received {leaks}"
            readable = everything - secrets
            assert {line.text.encode() for line in client.talk(contest)} == readable, principal  # and reads the rest
        for client in next_door:
            assert not leaked("".join(client.frames).encode(), everything)
        whispers = {line.text.encode() for line in said if line.whisper}
        assert not [r for r in caplog.records if leaked(f"{r.getMessage()} {r.__dict__}".encode(), everything)]

        for asker, principal_role in ((gm, ("gm", "gm")), (followers[AUDITOR, "auditor"], (AUDITOR, "auditor"))):
            for viewer in ("gm", "ann", "bob", SPECTATOR):
                answer = await asker.timeline(contest, viewer=viewer)
                role = "gm" if viewer == "gm" else "spectator" if viewer == SPECTATOR else "player"
                forbidden = talk_secrets(said, viewer, role, setting) | talk_secrets(said, *principal_role, setting)
                assert not leaked(encode(answer), forbidden), (principal_role, viewer)

        talk = await TalkLog(store).export(contest, await server.context.service.events(contest))
        assert bool(leaked(talk, whispers)) is auditors_whispers
        assert not leaked(talk, talk_secrets(said, AUDITOR, "auditor", setting))
        for client in [*followers.values(), *next_door]:
            await client.close()
    finally:
        await server.shutdown()
