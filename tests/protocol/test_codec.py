"""Hostile bytes become stable error codes; well-formed commands decode to their types."""

from __future__ import annotations

import json

import pytest

from protocol import extended as x
from protocol.codec import decode_untrusted
from protocol.errors import Refused
from protocol.events import Command, Declare
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
