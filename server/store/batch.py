"""The batch rule every backend checks before touching storage."""

from __future__ import annotations

from collections.abc import Sequence

from server.store.port import BadBatchError, Record


def check_batch(records: Sequence[Record], expected_version: int) -> None:
    """Raise BadBatchError unless ``records`` is a non-empty run continuing ``expected_version``."""
    if expected_version < 0:
        raise BadBatchError(f"expected_version must be >= 0, got {expected_version}")
    if not records:
        raise BadBatchError("a batch needs at least one record")
    for index, record in enumerate(records):
        want = expected_version + 1 + index
        if record.version != want:
            raise BadBatchError(f"records[{index}].version is {record.version}, expected {want}")
        if not record.event_id:
            raise BadBatchError(f"records[{index}].event_id is empty")
    if len({record.event_id for record in records}) != len(records):
        raise BadBatchError("a batch repeats an event_id")
