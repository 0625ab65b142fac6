"""Table talk keeps its secrecy law for any table and any talk: played at random (who speaks, to whom, plain or
rolled, under every creation setting), every follower — each GM seat, each player seat, a spectator, an auditor,
one who arrives late — receives exactly the lines it may read, each once, and not a byte of any other, in the
history after its welcome as in each new line; and the export of the talk holds no whisper unless the setting
lets auditors read whispers."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import decode
from protocol.common import AUDITOR, SPECTATOR, Actor, Seat
from protocol.errors import Refused
from protocol.talk import Said, Talk, TalkLine, TalkSetting
from server.feed.talk import TalkFeed
from server.service import ContestService
from server.store import MemoryStore
from server.talk import may_read
from server.talklog import TalkLog
from tests.conformance.secrecy import leaked, talk_secrets
from tests.engine.table import duel

SEATS = [Seat("gm", "gm"), Seat("gm2", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["orc"])]
FOLLOWERS = [(s.id, s.role) for s in SEATS] + [(SPECTATOR, "spectator"), (AUDITOR, "auditor")]


class Recorder:
    """A follower's connection: every frame it is sent."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def lines(self) -> list[TalkLine]:
        out: list[TalkLine] = []
        for frame in self.frames:
            if b'"type":"talk"' in frame:
                out += decode(frame, Talk).lines
            else:
                out.append(decode(frame, Said).line)
        return out


class Generations:
    def generation(self, seat: str) -> int:
        return 0


saying = st.tuples(
    st.sampled_from([s.id for s in SEATS]),
    st.sampled_from([None, "gm", "gm2", "ann", "bob", "nobody"]),
    st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(
    spectators=st.booleans(),
    auditors_whispers=st.booleans(),
    said=st.lists(saying, min_size=1, max_size=12),
    late=st.integers(min_value=0, max_value=12),
)
def test_every_follower_receives_exactly_the_lines_it_may_read(
    spectators: bool, auditors_whispers: bool, said: list[tuple[str, str | None, bool]], late: int
) -> None:
    asyncio.run(_play(TalkSetting(spectators, auditors_whispers), said, late))


async def _play(setting: TalkSetting, said: list[tuple[str, str | None, bool]], late: int) -> None:
    store = MemoryStore()
    service = ContestService(store)
    request = msgspec.structs.replace(duel(), contest="talk", seats=SEATS, talk=setting)
    await service.create(Actor("gm", "gm"), request)
    _, contest = await service.load("talk")
    feed = TalkFeed("talk", store, lambda _: None)
    await feed.start(service)
    talk = TalkLog(store)
    talk.rate.lines = 1000
    followers: dict[tuple[str, str], Recorder] = {}

    def attach(principal: str, role: str) -> Recorder:
        recorder = Recorder()
        feed.attach(recorder, principal, role, 0, Generations())
        return recorder

    for who in FOLLOWERS:
        followers[who] = attach(*who)
    stored: list[TalkLine] = []
    try:
        for i, (speaker, to, roll) in enumerate(said):
            if i == late:
                followers[SPECTATOR + "-late", "spectator"] = attach(SPECTATOR, "spectator")
                followers["ann-late", "player"] = attach("ann", "player")
            role = next(s.role for s in SEATS if s.id == speaker)
            text = f"/roll 2d6 line-{i}-secret" if roll else f"line-{i}-secret"
            try:
                line, _ = await talk.say("talk", contest.created, 1, False, Actor(speaker, role), f"c{i}", text, to)
            except Refused:
                continue
            stored.append(line)
            await feed.answer(Recorder(), f"key-{i}", line, False, 1.0)
        for (principal, role), recorder in followers.items():
            principal = principal.removesuffix("-late")
            received = recorder.lines()
            assert len({line.n for line in received}) == len(received), "a line received twice"
            assert [line.n for line in received] == [
                line.n for line in stored if may_read(line, principal, role, setting)
            ], (principal, role)
            secrets = _texts(talk_secrets(stored, principal, role, setting))
            assert not leaked(b"".join(recorder.frames), secrets), (principal, role)
        exported = await talk.export("talk", await service.events("talk"))
        whispers = _texts({line.text.encode() for line in stored if line.whisper})
        assert bool(leaked(exported, whispers)) == (setting.auditors_whispers and bool(whispers))
    finally:
        await feed.stop()


def _texts(texts: Any) -> set[bytes]:
    """Texts to look for, each ending where the line's text ends (``line-1-secret`` is not in ``line-11-secret``)."""
    return {text + b'"' for text in texts}
