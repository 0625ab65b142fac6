"""Every text a client sends is bounded at decoding: a name is a line, a scene a paragraph."""

from __future__ import annotations

import json

import pytest

from protocol.codec import decode_untrusted
from protocol.errors import BAD_FIELD, Refused
from protocol.rulesets import contingency as c

LINE = "x" * 80
PARAGRAPH = "x" * 2000


def _code(command: dict[str, object]) -> str | None:
    try:
        decode_untrusted(json.dumps(command), c.Command)  # type: ignore[arg-type]
    except Refused as refused:
        return refused.code
    return None


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"type": "contingency.set_scene", "text": PARAGRAPH}, "text"),
        ({"type": "contingency.set_scene", "text": "", "foreshadow": PARAGRAPH}, "foreshadow"),
        ({"type": "contingency.environmental", "text": PARAGRAPH}, "text"),
        ({"type": "contingency.add_trait", "zone": "a", "trait": LINE}, "trait"),
        ({"type": "contingency.take_omen", "character": "a", "omen": LINE}, "omen"),
        ({"type": "contingency.change_action", "action": "a.1", "to": LINE}, "to"),
        ({"type": "contingency.add_zone", "zone": {"id": "a", "name": LINE, "traits": [LINE]}}, "zone"),
        (
            {
                "type": "contingency.add_character",
                "character": {"id": "a", "name": LINE, "zone": "z", "actions": [LINE]},
            },
            "character",
        ),
        (
            {
                "type": "contingency.connect",
                "connection": {"a": "a", "b": "b", "barrier": {"difficulty": 3, "action": LINE}},
            },
            "connection",
        ),
    ],
)
def test_a_text_at_its_bound_is_taken_and_one_letter_more_is_refused(command: dict[str, object], field: str) -> None:
    assert _code(command) is None
    text = json.dumps(command)
    longer = text.replace(PARAGRAPH, PARAGRAPH + "x") if PARAGRAPH in text else text.replace(LINE, LINE + "x")
    with pytest.raises(Refused) as refused:
        decode_untrusted(longer, c.Command)  # type: ignore[arg-type]
    assert refused.value.code == BAD_FIELD and field in refused.value.message


def test_the_setup_bounds_its_names() -> None:
    setup = {
        "type": "contingency.setup",
        "zones": [{"id": "a", "name": LINE + "x"}],
        "characters": [],
    }
    with pytest.raises(Refused) as refused:
        decode_untrusted(json.dumps(setup), c.ContingencySetup)
    assert refused.value.code == BAD_FIELD and "name" in refused.value.message
