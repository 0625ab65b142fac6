"""The batch rule every backend checks before touching storage."""

from __future__ import annotations

from collections.abc import Sequence

from server.store.port import BadBatchError, ConflictError, Record


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
        if index and record.prev_hash != records[index - 1].hash:
            raise BadBatchError(f"records[{index}].prev_hash is not the hash of records[{index - 1}]")
    if len({record.event_id for record in records}) != len(records):
        raise BadBatchError("a batch repeats an event_id")


def same_content(stored: Record, retried: Record) -> bool:
    """Whether a stored record is the retried one: an acknowledged retry must be the very same batch."""
    return stored.data == retried.data and stored.hash == retried.hash and stored.prev_hash == retried.prev_hash


def check_head(contest: str, head_hash: str, records: Sequence[Record]) -> None:
    """ConflictError unless the batch chains onto the stored head (a head stored without a hash matches)."""
    if head_hash and head_hash != records[0].prev_hash:
        raise ConflictError(
            f"{contest}: the stored head's hash is not the batch's prev_hash (another history took this version)"
        )


def check_retry(contest: str, stored: Sequence[Record], records: Sequence[Record]) -> list[int]:
    """The versions of an acknowledged retry, or ConflictError when an id is stored with other content."""
    for old, new in zip(stored, records, strict=True):
        if not same_content(old, new):
            raise ConflictError(f"{contest}: event id {new.event_id} is already stored with other content")
    return [old.version for old in stored]
