"""Every number and text a client can send is bounded at decoding (issue: one roll could freeze the server).

Each case is a frame an outsider could send; the bound answers ``protocol/bad_field`` naming the field, so no
rules computation ever runs on it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from protocol import errors
from protocol.codec import decode_untrusted
from protocol.errors import Refused
from protocol.messages import ClientMessage
from server.rules.questworlds.levels import Level, apply_masteries
from server.rules.questworlds.ratings import Rating


def contestant(**changes: Any) -> dict[str, Any]:
    return {"id": "aria", "name": "Aria", "ability": "Sword", "rating": "15", **changes}


def create(**changes: Any) -> dict[str, Any]:
    setup = {
        "type": "extended.setup",
        "prize": "the bridge",
        "contestants": [contestant(**changes), contestant(id="o")],
    }
    contest = {"ruleset": "extended", "setup": setup, "seats": [{"id": "gm", "role": "gm"}]}
    return {"type": "create", "id": "c1", "contest": contest}


def command(body: dict[str, Any]) -> dict[str, Any]:
    return {"type": "command", "id": "c1", "contest": "duel", "command": body}


def intent(**fields: Any) -> dict[str, Any]:
    return command({"type": "seal.declare", "participant": "aria", "payload": {"type": "extended.intent", **fields}})


HOSTILE = [
    ("modifier", create(modifier=10**12)),
    ("augment", create(augment=-(10**9))),
    ("followers_ap", create(followers_ap=10**7)),
    ("edge", create(edge=10**7)),
    ("hero_points", create(hero_points=10**6)),
    ("rating", create(rating="1W" + "0" * 14)),
    ("rating", create(rating="9" * 5000)),
    (
        "prize",
        {
            **create(),
            "contest": {**create()["contest"], "setup": {**create()["contest"]["setup"], "prize": "p" * 5000}},
        },
    ),
    ("bid", intent(bid=10**9)),
    ("rating", intent(ability="Axe", rating="20W" + "9" * 20)),
    ("bid", command({"type": "extended.propose_bid", "contestant": "aria", "bid": 10**10})),
    ("delta", command({"type": "extended.adjust", "contestant": "aria", "delta": 10**18, "reason": "x"})),
    ("delta", command({"type": "extended.adjust", "contestant": "aria", "delta": -(10**7), "reason": "x"})),
    ("faces", command({"type": "extended.roll", "faces": [10**6, 3]})),
    ("faces", command({"type": "extended.roll", "faces": [1] * 1000})),
    ("order", command({"type": "extended.set_order", "order": ["a"] * 1000})),
]


@pytest.mark.parametrize(("field", "frame"), HOSTILE, ids=[f"{i}-{f}" for i, (f, _) in enumerate(HOSTILE)])
def test_a_number_or_text_out_of_bounds_is_refused_at_decoding_naming_its_field(field: str, frame: Any) -> None:
    with pytest.raises(Refused) as refused:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == errors.BAD_FIELD
    assert field in refused.value.message


def test_values_within_bounds_still_decode() -> None:
    decode_untrusted(json.dumps(create(modifier=-30, edge=2, hero_points=3, rating="5W2")), ClientMessage)  # type: ignore[arg-type]
    decode_untrusted(json.dumps(intent(bid=40, ability="Axe", rating="20W3")), ClientMessage)  # type: ignore[arg-type]


def test_a_rating_with_more_masteries_than_any_table_is_a_bad_rating() -> None:
    with pytest.raises(ValueError, match="at most 100"):
        Rating.parse("1W10000000")
    assert Rating.parse("20W100").value == 2020


def test_masteries_cost_constant_time_however_many() -> None:
    # A step per mastery would spend seconds of CPU on 10**8 of them; constant time spends microseconds (CPU
    # time, which a busy machine does not stretch as it stretches the clock).
    started = time.process_time()
    assert apply_masteries(Level.FAILURE, 10**8, Level.SUCCESS, 0) == (Level.CRITICAL, Level.FUMBLE)
    assert apply_masteries(Level.SUCCESS, 3, Level.SUCCESS, 10**8 + 3) == (Level.FUMBLE, Level.CRITICAL)
    assert apply_masteries(Level.FAILURE, 10**8, Level.SUCCESS, 0, bump_down=False) == (Level.CRITICAL, Level.SUCCESS)
    assert time.process_time() - started < 0.5
