"""Fuzzing with Hypothesis: hostile frames through the decoder and, when they decode, through the service.

Short here (the suite); ``python -m tests.torture`` runs the same properties with many more examples. A
frame may only be refused with a stable code or accepted; a refused command leaves the log as it was; and
no frame costs more than a bounded time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import decode_untrusted, encode
from protocol.errors import Refused
from protocol.messages import ClientMessage, Execute
from server.service import ContestService
from server.store import MemoryStore
from tests.engine.table import GM
from tests.net.duel import duel
from tests.torture import seed_frames

SLOWEST_FRAME = 0.5
"""Seconds of CPU time: no frame may cost more (decoding and handling together)."""

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=30,
)


def mutated(frame: Any) -> st.SearchStrategy[Any]:
    """``frame`` with one leaf or member replaced by any JSON value (the shape stays close to valid)."""
    if isinstance(frame, dict) and frame:
        return st.sampled_from(sorted(frame)).flatmap(
            lambda key: st.one_of(mutated(frame[key]), json_values).map(lambda value: {**frame, key: value})
        )
    if isinstance(frame, list) and frame:
        return st.integers(0, len(frame) - 1).flatmap(
            lambda i: st.one_of(mutated(frame[i]), json_values).map(lambda v: [*frame[:i], v, *frame[i + 1 :]])
        )
    return json_values


CONTEST = "fuzzed"
frames = st.sampled_from(seed_frames(CONTEST)).flatmap(mutated)
raw = st.binary(max_size=200) | st.text(max_size=200).map(str.encode)


def _settings(examples: int) -> Callable[[Any], Any]:
    return settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def check_decoder(examples: int) -> int:
    """Any bytes: decoded, or refused with a stable code — never another exception."""
    cases = 0

    @_settings(examples)
    @given(st.one_of(raw, frames.map(lambda frame: json.dumps(frame).encode())))
    def decoder(data: bytes) -> None:
        nonlocal cases
        cases += 1
        started = time.process_time()
        try:
            decode_untrusted(data, ClientMessage)  # type: ignore[arg-type]
        except Refused as refused:
            assert refused.code.startswith("protocol/")
        assert time.process_time() - started < SLOWEST_FRAME

    decoder()
    return cases


def check_commands(examples: int) -> int:
    """Every command that decodes runs against a live contest as its GM: it is acknowledged, or refused
    with nothing changed."""
    cases = 0
    loop = asyncio.new_event_loop()
    store = MemoryStore()
    service = ContestService(store)
    loop.run_until_complete(service.create(GM, duel(contest=CONTEST)))

    @_settings(examples)
    @given(frames)
    def commands(frame: Any) -> None:
        nonlocal cases
        cases += 1
        try:
            message = decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
        except Refused:
            return
        if not isinstance(message, Execute):
            return
        before = loop.run_until_complete(store.read(CONTEST))
        started = time.process_time()
        try:
            loop.run_until_complete(service.execute(CONTEST, GM, encode(frame).hex()[:100], message.command))
        except Refused:
            assert loop.run_until_complete(store.read(CONTEST)) == before
        assert time.process_time() - started < SLOWEST_FRAME

    try:
        commands()
    finally:
        loop.run_until_complete(service.drain())
        loop.run_until_complete(store.close())
        loop.close()
    return cases


PROPERTIES = [check_decoder, check_commands]


def test_hostile_frames_are_decoded_or_refused_with_a_stable_code() -> None:
    assert check_decoder(300) >= 300


def test_hostile_commands_are_acknowledged_or_refused_changing_nothing() -> None:
    assert check_commands(150) >= 100
