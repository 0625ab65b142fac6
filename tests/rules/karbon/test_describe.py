"""Karbon's log lines name dice by their kind and face, as a table says them, never by their ids."""

from __future__ import annotations

from protocol.rulesets import karbon as k
from server.rules.karbon.describe import describe


def test_hands_and_rolls_are_told_by_kind_and_face() -> None:
    drawn = describe(k.HandsDrawn(agent=["d6-1", "d6-4", "d8-2", "r10-1"], narrator=["d10-3"]))
    assert drawn == "hands drawn: the agent takes 2 d6, a d8 and a d10; the narrator takes a d10"
    assert (
        describe(k.HandsDrawn(agent=[], narrator=["d12-1"]))
        == "hands drawn: the agent takes no dice; the narrator takes a d12"
    )
