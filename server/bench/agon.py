"""Agon as a benchmark target: contests prepared in the store, tokens minted with the server's secret."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import msgspec

from protocol.common import SPECTATOR, Actor
from protocol.events import CreateContest
from server.bench.drive import ROOM, Target, as_frame, command_id
from server.net.auth import Tokens
from server.service import ContestService
from server.store import open_store

GM = Actor("gm", "gm")
TTL = 24 * 3600


def request(contest: str) -> CreateContest:
    """A duel with a GM and four player seats (two of them with a contestant each), physical dice."""
    return msgspec.convert(
        {
            "ruleset": "extended",
            "title": "Bench",
            "dice": "physical",
            "contest": contest,
            "seats": [
                {"id": "gm", "role": "gm"},
                {"id": "p1", "role": "player", "contestants": ["aria"]},
                {"id": "p2", "role": "player", "contestants": ["orc"]},
                {"id": "p3", "role": "player"},
                {"id": "p4", "role": "player"},
            ],
            "setup": {
                "type": "extended.setup",
                "prize": "the bridge",
                "contestants": [
                    {"id": "aria", "name": "Aria", "ability": "Sword", "rating": "15"},
                    {"id": "orc", "name": "Orc", "ability": "Axe", "rating": "12"},
                ],
            },
        },
        CreateContest,
    )


def adjust(n: int) -> dict[str, object]:
    """The n-th GM command: an AP adjustment, alternately up and down so the numbers stay small."""
    return {"type": "extended.adjust", "contestant": "aria", "delta": 1 if n % 2 else -1, "reason": "bench"}


async def create_contests(store_spec: str, names: Sequence[str]) -> None:
    store = open_store(store_spec)
    try:
        service = ContestService(store)
        for name in names:
            await service.create(GM, request(name), command_id=f"create-{name}")
        await service.drain()
    finally:
        await store.close()


def target(urls: Sequence[str], names: Sequence[str], secret: str, pids: Sequence[int]) -> Target:
    tokens = Tokens(secret.encode())
    hellos: dict[tuple[int, int], bytes] = {}
    for room, name in enumerate(names):
        for member, seat in enumerate(ROOM):
            role = "gm" if seat == "gm" else "spectator" if seat == "spectator" else "player"
            token = tokens.issue(name, role, SPECTATOR if role == "spectator" else seat, TTL)  # type: ignore[arg-type]
            hellos[room, member] = as_frame(
                {"type": "hello", "follow": [{"contest": name, "token": token}], "client": "agon bench"}
            )

    tag = secrets.token_hex(4)

    def command(room: int, n: int) -> bytes:
        frame = {"type": "command", "id": command_id(tag, n), "contest": names[room], "command": adjust(n)}
        return as_frame(frame)

    return Target(urls=urls, hello=lambda room, member: hellos[room, member], command=command, pids=pids, tag=tag)


def floor_target(url: str, pid: int) -> Target:
    return Target(
        urls=[url],
        hello=lambda room, member: as_frame({"type": "hello", "room": room}),
        command=lambda room, n: as_frame({"type": "command", "id": command_id("", n), "room": room}),
        pids=[pid],
    )
