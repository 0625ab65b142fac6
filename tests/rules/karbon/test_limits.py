"""The scene's limits: every number and text a client sends is bounded at decoding, and a correction never
takes a count past what every client can hold exactly (docs/rules/karbon.md, "Limits")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol import errors
from protocol.codec import decode_untrusted
from protocol.errors import Refused
from protocol.messages import ClientMessage
from protocol.rulesets import karbon as k
from tests.rules.karbon.table import ANN, GM, Table, contest, scene

TOO_BIG = [2**63 - 1, 10**30]


def test_a_correction_raises_fortune_to_the_setups_limit_and_no_further() -> None:
    table = Table(scene(fortune=90))
    assert table.refused(GM, k.Adjust(target="fortune", delta=11, reason="a windfall")) == "rules/bad_delta"
    for delta in TOO_BIG:
        assert table.refused(GM, k.Adjust(target="fortune", delta=delta, reason="a windfall")) == "rules/bad_delta"
    assert table.rules.fortune == 90
    table.do(GM, k.Adjust(target="fortune", delta=10, reason="a windfall"))
    assert table.rules.fortune == 100
    assert table.refused(GM, k.Adjust(target="fortune", delta=1, reason="one more")) == "rules/bad_delta"


@pytest.mark.parametrize("target", ["agent_hand", "narrator_hand"])
def test_a_correction_leaves_at_most_a_thousand_chips_in_a_hand(target: str) -> None:
    table = Table()
    table.do(GM, contest())
    side = target.removesuffix("_hand")
    for delta in TOO_BIG:
        assert table.refused(GM, k.Adjust(target=target, delta=delta, reason="a slip")) == "rules/bad_delta"  # type: ignore[arg-type]
    table.do(GM, k.Adjust(target=target, delta=1000, reason="a slip"))  # type: ignore[arg-type]
    assert table.chips(side) == (1000, 0)
    assert table.refused(GM, k.Adjust(target=target, delta=1, reason="a slip")) == "rules/bad_delta"  # type: ignore[arg-type]
    table.do(GM, k.Adjust(target=target, delta=-999, reason="the slip undone"))  # type: ignore[arg-type]
    assert table.chips(side) == (1, 0)


def test_a_correction_can_still_lower_a_count_a_win_put_above_the_limit() -> None:
    # a win at zero Fortune gives back full Fortune and one more: 101 from a full 100
    table = Table(scene(fortune=100))
    table.do(GM, k.Adjust(target="fortune", delta=-100, reason="spent"))
    table.do(GM, k.StartContest(goal="g", ability="a", level=5, challenge=1, consequence=1))
    table.do(GM, k.DrawHands(agent=["d6-1", "d6-2", "d6-3", "d6-4", "d6-5"], narrator=["d8-1"]))
    table.risk()
    table.roll({"d6-1": 1, "d6-2": 1, "d6-3": 1, "d6-4": 1, "d6-5": 1, "d8-1": 5})
    table.do(ANN, k.Stack(side="agent", chips=5))
    table.do(ANN, k.ChooseBreak(choice="footing", option="discard"))
    assert table.rules.fortune == 101
    assert table.refused(GM, k.Adjust(target="fortune", delta=1, reason="more")) == "rules/bad_delta"
    table.do(GM, k.Adjust(target="fortune", delta=-1, reason="spent"))
    assert table.rules.fortune == 100


# --- at decoding: what an outsider could send -----------------------------------------------------------


def create(**setup: Any) -> dict[str, Any]:
    body = {"type": "karbon.setup", "agent": "vera", "name": "Vera", **setup}
    return {"type": "create", "id": "c1", "contest": {"ruleset": "karbon", "setup": body, "seats": []}}


def command(**body: Any) -> dict[str, Any]:
    return {"type": "command", "id": "c1", "contest": "docks", "command": body}


def start(**fields: Any) -> dict[str, Any]:
    stats: dict[str, Any] = {"goal": "g", "ability": "a", "level": 3, "challenge": 2, "consequence": 2}
    return command(type="karbon.start_contest", **{**stats, **fields})


def adjust(target: str, delta: int, reason: str = "x") -> dict[str, Any]:
    return command(type="karbon.adjust", target=target, delta=delta, reason=reason)


def risk(move: str) -> dict[str, Any]:
    payload = {"type": "karbon.risk", "all_in": True, "move": move}
    return command(type="seal.declare", participant="vera", payload=payload)


HOSTILE = [
    ("fortune", create(fortune=101)),
    ("fortune", create(fortune=2**63 - 1)),
    ("fortune", create(fortune=-1)),
    ("name", create(name="n" * 81)),
    ("agent", create(agent="a" * 65)),
    ("delta", adjust("fortune", 2**63 - 1)),
    ("delta", adjust("agent_hand", 10**30)),
    ("delta", adjust("narrator_hand", -(10**9))),
    ("reason", adjust("fortune", 1, "r" * 501)),
    ("goal", start(goal="g" * 201)),
    ("ability", start(ability="a" * 201)),
    ("level", start(level=10**6)),
    ("injuries", start(injuries=10**6)),
    ("factors", start(challenge=None, challenge_guide={"difficulty": "easy", "factors": 10**18})),
    ("major_extra", start(consequence=None, consequence_guide={"scope": "major", "major_extra": 10**18})),
    ("challenge", command(type="karbon.change_challenge", challenge=10**9)),
    ("reason", command(type="karbon.change_peril", peril=1, reason="r" * 501)),
    ("peril", command(type="karbon.change_peril", peril=-(10**9))),
    ("chips", command(type="karbon.stack", side="agent", chips=2**63 - 1)),
    ("faces", command(type="karbon.roll", faces={"d6-1": 10**9})),
    ("faces", command(type="karbon.roll", faces={f"d6-{i}": 1 for i in range(100)})),
    ("peril", command(type="karbon.roll", peril=[1] * 1000)),
    ("risk", command(type="karbon.roll", risk=[10**9, 1, 1])),
    ("drawn", command(type="karbon.roll", drawn=["d6-1"] * 1000)),
    ("agent", command(type="karbon.draw_hands", agent=["d6-1"] * 1000, narrator=[])),
    ("label", command(type="karbon.narrator_option", option="injury", label="l" * 81)),
    ("move", risk("m" * 501)),
]


def decoded(frame: Any) -> str:
    """What the server answers a frame: "ok", or the refusal's code and message."""
    try:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    except Refused as exc:
        return f"{exc.code}: {exc.message}"
    return "ok"


@pytest.mark.parametrize(("field", "frame"), HOSTILE, ids=[f"{i}-{f}" for i, (f, _) in enumerate(HOSTILE)])
def test_a_karbon_number_or_text_out_of_bounds_is_a_bad_field_naming_it(field: str, frame: Any) -> None:
    answer = decoded(frame)
    assert answer.startswith(f"{errors.BAD_FIELD}: ") and field in answer, answer


@pytest.mark.parametrize(
    "frame",
    [
        create(fortune=100, name="n" * 80),
        adjust("narrator_hand", 1000, "r" * 500),
        adjust("agent_hand", -1000),
        start(goal="g" * 200, ability="a" * 200, injuries=3),
        command(type="karbon.narrator_option", option="injury", label="l" * 80),
        risk("m" * 500),
    ],
)
def test_values_at_the_limits_still_decode(frame: Any) -> None:
    assert decoded(frame) == "ok"
