"""Notices: one readable line per event, written from what the viewer may see."""

from __future__ import annotations

import json

from protocol.common import Actor
from protocol.events import Conclude, Declare, Undo
from protocol.rulesets import extended as x
from server.engine.names import Naming
from server.engine.ruleset import Viewer
from server.feed.notices import notice_frame
from server.net.auth import SPECTATOR
from server.service import ContestService
from server.store.memory import MemoryStore
from tests.net.duel import ARIA_WINS, ORC_FAILS, duel

GM, ANN, BOB = Actor("gm", "gm"), Actor("ann", "player"), Actor("bob", "player")
VIEWERS = {
    "gm": Viewer("gm", "gm"),
    "ann": Viewer("ann", "player", frozenset({"aria"})),
    "bob": Viewer("bob", "player", frozenset({"orc"})),
    "spectator": Viewer(SPECTATOR, "spectator"),
}


async def test_every_event_has_a_line_and_sealed_ones_hide_their_payload() -> None:
    service = ContestService(MemoryStore())
    created = await service.create(GM, duel(contest="duel"))
    steps = [
        (ANN, Declare(participant="aria", payload=x.Intent(action="SECRET-LUNGE", bid=8))),
        (BOB, Declare(participant="orc", payload=x.Intent(action="SECRET-PARRY", bid=3))),
        (GM, x.Roll(faces=ARIA_WINS)),
        (GM, Undo()),
        (GM, x.Roll(faces=ARIA_WINS)),
        (GM, x.Adjust(contestant="orc", delta=2, reason="second wind")),
        (GM, x.Roll(faces=ORC_FAILS)),
        (GM, Conclude()),
    ]
    for i, (actor, command) in enumerate(steps):
        await service.execute("duel", actor, f"c{i}", command)
    rules, _ = await service.load("duel")
    envelopes = await service.events("duel")
    assert envelopes[0].version == 1 and created.version == 2
    lines: dict[str, list[dict[str, object]]] = {name: [] for name in VIEWERS}
    for envelope in envelopes:
        for name, viewer in VIEWERS.items():
            frame = notice_frame(rules, None, envelope, viewer, Naming({}, {}), "duel")
            assert frame is not None
            lines[name].append(json.loads(frame))
    for notices in lines.values():
        assert [n["version"] for n in notices] == [e.version for e in envelopes]
        assert all(n["text"] for n in notices)
    texts = {name: "\n".join(str(n["text"]) for n in notices) for name, notices in lines.items()}
    declared_by_ann = texts["bob"].split("\n")[2]  # version 3: Ann's sealed intent
    assert "has declared (sealed" in declared_by_ann and "SECRET-LUNGE" not in declared_by_ann
    assert "SECRET-LUNGE" in texts["ann"].split("\n")[2] and "SECRET-LUNGE" in texts["gm"].split("\n")[2]
    assert "SECRET-LUNGE" not in texts["spectator"].split("\n")[2]
    assert "undid back to version" in texts["spectator"]
    assert "concluded the contest" in texts["spectator"]
