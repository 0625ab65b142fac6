"""Commitments to sealed declarations: sha256(salt ‖ canonical payload)."""

from __future__ import annotations

import hashlib

from protocol.codec import canonical
from protocol.events import Declaration


def commit(salt: str, payload: Declaration) -> str:
    return hashlib.sha256(bytes.fromhex(salt) + canonical(payload)).hexdigest()
