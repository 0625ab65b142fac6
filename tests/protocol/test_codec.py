"""Hostile bytes become stable error codes; well-formed commands decode to their types."""

from __future__ import annotations

import json

import msgspec
import pytest

from protocol.codec import canonical, decode_untrusted, document, encode, to_builtins
from protocol.errors import Refused
from protocol.events import Command, Declare
from protocol.rulesets import extended as x
from protocol.schema import schema_json


@pytest.mark.parametrize(
    ("frame", "code", "names"),
    [
        (b"{not json", "protocol/bad_frame", ""),
        (b"\xff\xfe", "protocol/bad_frame", ""),
        (b'{"type": "extended.fly"}', "protocol/unknown_message", "extended.fly"),
        (b"{}", "protocol/unknown_message", "type"),
        (b"[]", "protocol/bad_field", ""),
        (b'{"type": "extended.roll", "faces": "one"}', "protocol/bad_field", "$.faces"),
        (
            b'{"type": "extended.adjust", "contestant": "a", "delta": 1.5, "reason": "r"}',
            "protocol/bad_field",
            "$.delta",
        ),
        (
            b'{"type": "seal.declare", "participant": "a", "payload": {"type": "extended.intent", "bid": "3"}}',
            "protocol/bad_field",
            "$.payload.bid",
        ),
        (b'{"type": "control.rewind"}', "protocol/bad_field", "to_version"),
        (b'{"type": "control.undo", "extra": 1}', "protocol/bad_field", "extra"),
    ],
)
def test_bad_frames_get_a_stable_code_naming_the_field(frame: bytes, code: str, names: str) -> None:
    with pytest.raises(Refused) as refused:
        decode_untrusted(frame, Command)  # type: ignore[arg-type]
    assert refused.value.code == code
    assert names in refused.value.message


def test_a_good_command_decodes() -> None:
    frame = b'{"type":"seal.declare","participant":"aria","payload":{"type":"extended.intent","bid":4}}'
    assert decode_untrusted(frame, Command) == Declare(participant="aria", payload=x.Intent(bid=4))  # type: ignore[arg-type]


def test_the_schema_names_every_command_and_event_tag() -> None:
    schema = json.loads(schema_json())
    text = json.dumps(schema)
    for tag in ["seal.declare", "control.undo", "extended.roll", "extended.exchange_applied", "contest.created"]:
        assert f'"{tag}"' in text
    assert "Envelope" in schema["$defs"]


def test_invalid_utf8_inside_a_tag_is_a_bad_frame_not_a_crash() -> None:
    """Found by the fuzzer: msgspec raises UnicodeDecodeError for a tag that is not UTF-8."""
    from protocol.codec import decode_untrusted
    from protocol.errors import Refused
    from protocol.messages import ClientMessage

    data = b'{"type": "' + b"x" * 127 + bytes([0x9A]) + b'"}'
    with pytest.raises(Refused) as refused:
        decode_untrusted(data, ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == "protocol/bad_frame"


class _Inner(msgspec.Struct, tag_field="type", tag="inner"):
    zeta: float
    alpha: bool


class _View(msgspec.Struct):
    version: int
    by_name: dict[str, int | None]
    inner: _Inner
    values: list[float | int | bool | None]
    note: str | None = None


def _types(value: object) -> object:
    """The value with every leaf tagged by its Python type (so True, 1 and 1.0 differ)."""
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return (type(value).__name__, repr(value))


def test_a_views_canonical_bytes_and_document_match_the_plain_values_it_stands_for() -> None:
    """Live patches hash the view's bytes encoded from the view itself and diff the document decoded from them;
    welcomes hash and send the plain values: both must be the same JSON, down to the type of every leaf."""
    view = _View(
        version=7,
        by_name={"zed": 1, "ann": None, "~/odd": -3},
        inner=_Inner(zeta=-0.0, alpha=True),
        values=[1, 1.0, True, None, 0.5],
        note="é ☃",
    )
    plain = to_builtins(view)
    assert canonical(view) == canonical(plain)
    assert list(plain) == sorted(plain) and list(plain["by_name"]) == sorted(plain["by_name"])
    assert _types(document(canonical(view))) == _types(plain)


DEEP = 30_000


@pytest.mark.parametrize(
    "frame",
    [
        b'{"a":' * DEEP + b"1" + b"}" * DEEP,
        b'{"a":' + b"[" * DEEP + b"]" * DEEP + b"}",
        b'{"a":' + b'{"b":[' * DEEP + b"]}" * DEEP + b"}",
    ],
    ids=["objects", "arrays-in-an-object", "objects-and-arrays"],
)
def test_a_frame_nested_thousands_deep_is_a_bad_frame_not_a_recursion_error(frame: bytes) -> None:
    """msgspec raises RecursionError for a value nested deeper than the interpreter's recursion limit."""
    from protocol.messages import ClientMessage

    with pytest.raises(Refused) as refused:
        decode_untrusted(frame, ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == "protocol/bad_frame"
    assert "nested too deeply" in refused.value.message


def test_a_seat_without_a_name_encodes_as_before_names_existed_and_one_with_a_name_carries_it() -> None:
    """Stored contests hash their seats' bytes: a seat with no name must keep the bytes it always had."""
    from protocol.common import Seat

    assert encode(Seat("ann", "player", ["aria"])) == b'{"id":"ann","role":"player","contestants":["aria"]}'
    named = Seat("ann", "player", ["aria"], name="Ann")
    assert encode(named) == b'{"id":"ann","role":"player","contestants":["aria"],"name":"Ann"}'
