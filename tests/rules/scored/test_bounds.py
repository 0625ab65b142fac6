"""Every number and text a client sends in a scored sequence is bounded at decoding, and no tally grows past
what every client represents exactly (a JavaScript number is exact only up to 2⁵³)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol import errors
from protocol.codec import decode_untrusted
from protocol.errors import Refused
from protocol.messages import ClientMessage
from protocol.rulesets import scored as s
from tests.rules.scored.table import GM, Table


def create(**changes: Any) -> dict[str, Any]:
    aria = {"id": "aria", "name": "Aria", "side": "heroes", "rating": "15", **changes}
    setup = {
        "type": "scored.setup",
        "prize": "the bridge",
        "contestants": [aria, {"id": "o", "name": "O", "side": "x"}],
    }
    contest = {"ruleset": "scored", "setup": setup, "seats": [{"id": "gm", "role": "gm"}]}
    return {"type": "create", "id": "c1", "contest": contest}


def command(**body: Any) -> dict[str, Any]:
    return {"type": "command", "id": "c1", "contest": "bridge", "command": body}


def tactic(**fields: Any) -> dict[str, Any]:
    payload = {"type": "scored.tactic", **fields}
    return command(type="seal.declare", participant="aria", payload=payload)


HOSTILE = [
    ("story_points", create(story_points=2**63 - 1)),
    ("story_points", create(story_points=10**30)),
    ("story_points", create(story_points=-1)),
    ("rating", create(rating="-" + "9" * 4000)),
    ("rating", create(rating="9" * 5000)),
    ("rating", create(rating="")),
    ("name", create(name="n" * 5000)),
    ("ability", create(ability="a" * 5000)),
    ("id", create(id="i" * 500)),
    ("rating", tactic(ability="Bow", rating="-" + "9" * 4000)),
    ("action", tactic(action="x" * 60000)),
    ("delta", command(type="scored.adjust", contestant="aria", delta=2**63 - 1, reason="x")),
    ("delta", command(type="scored.adjust", contestant="aria", delta=10**30, reason="x")),
    ("delta", command(type="scored.adjust", contestant="aria", delta=-(2**63), reason="x")),
    ("reason", command(type="scored.adjust", contestant="aria", delta=1, reason="r" * 60000)),
    ("points", command(type="scored.shift_points", contestant="aria", follower="brin", points=2**63 - 1)),
    ("faces", command(type="scored.roll", faces=[2**63, 1])),
    ("faces", command(type="scored.roll", faces=[1] * 1000)),
    ("rating", command(type="scored.assist", helper="a", beneficiary="b", ability="x", rating="9" * 5000)),
    ("action", command(type="scored.parting_shot", shooter="a", target="b", action="x" * 60000)),
    ("rating", command(type="scored.engage_follower", opponent="a", follower="b", ability="x", rating="1W" + "0" * 20)),
]


@pytest.mark.parametrize(("field", "frame"), HOSTILE, ids=[f"{i}-{f}" for i, (f, _) in enumerate(HOSTILE)])
def test_a_number_or_text_out_of_bounds_is_refused_at_decoding_naming_its_field(field: str, frame: Any) -> None:
    refusal = refused(frame)
    assert refusal.code == errors.BAD_FIELD and field in refusal.message
    assert "sys." not in refusal.message  # a plain message, not Python's advice about long numbers


def refused(frame: Any) -> Refused:
    try:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    except Refused as refusal:
        return refusal
    raise AssertionError(f"{frame} was decoded")


def test_values_within_bounds_still_decode() -> None:
    decode_untrusted(json.dumps(create(story_points=100, rating="5W2", name="n" * 200)), ClientMessage)  # type: ignore[arg-type]
    decode_untrusted(
        json.dumps(command(type="scored.adjust", contestant="aria", delta=-s.MAX_POINTS, reason="r" * 2000)),
        ClientMessage,  # type: ignore[arg-type]
    )


def test_a_correction_never_takes_a_tally_past_the_bound() -> None:
    table = Table()
    table.adjust("ogre", 4)
    # 4 + 999,997 = 1,000,001: one too many, and nothing changes
    too_far = s.Adjust(contestant="ogre", delta=s.MAX_POINTS - 3, reason="a landslide")
    assert table.refused(GM, too_far) == "rules/bad_delta"
    assert table.rp("ogre") == 4 and table.out("ogre") is None
    table.do(GM, s.Adjust(contestant="ogre", delta=s.MAX_POINTS - 4, reason="a landslide"))
    assert table.rp("ogre") == s.MAX_POINTS and table.out("ogre") == "tally"
