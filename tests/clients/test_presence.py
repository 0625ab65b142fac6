"""The Python client keeps who is at each followed contest's table (the last ``presence`` frame) and says it in one
line a person reads: seats by name, the GM as "the GM", an unnamed player's seat by the contestants it plays."""

from __future__ import annotations

import msgspec

from clients.python.core import ClientCore, Present
from clients.python.presence import presence_line
from protocol.codec import encode
from protocol.presence import Presence, SeatPresence

PRESENCE = Presence(
    contest="duel",
    seats=[
        SeatPresence(seat="gm", role="gm", here=True),
        SeatPresence(seat="ann", role="player", here=True, contestants=["aria"], name="Ann"),
        SeatPresence(seat="bob", role="player", here=False, contestants=["orc"]),
    ],
    spectators=2,
)


def test_the_core_keeps_the_last_presence_of_a_followed_contest_only() -> None:
    core = ClientCore()
    mirror = core.expect("duel", "token")
    [told] = core.receive(encode(PRESENCE))
    assert isinstance(told, Present) and told.mirror is mirror and mirror.presence == PRESENCE
    assert core.receive(encode(msgspec.structs.replace(PRESENCE, contest="elsewhere"))) == []


def test_a_presence_in_one_line() -> None:
    names = {"aria": "Aria", "orc": "Orc"}.get
    line = presence_line(PRESENCE, lambda ident: names(ident) or ident, mine="ann")
    assert line == "at the table: the GM, Ann (you); away: Orc's player · 2 spectators"
    for_the_gm = msgspec.structs.replace(PRESENCE, spectators=1, auditors=1)
    assert presence_line(for_the_gm).endswith("away: orc's player · 1 spectator · 1 auditor reading")
