"""The hash chain over a contest's envelopes: tamper evidence for exported logs."""

from __future__ import annotations

import hashlib

import msgspec

from protocol.codec import canonical
from protocol.events import Envelope

GENESIS = "0" * 64


def envelope_hash(envelope: Envelope) -> str:
    """sha256(prev_hash ‖ canonical bytes of the envelope with an empty hash)."""
    body = canonical(msgspec.structs.replace(envelope, hash=""))
    return hashlib.sha256(bytes.fromhex(envelope.prev_hash) + body).hexdigest()


def sealed(envelope: Envelope) -> Envelope:
    """The envelope with its hash filled in."""
    return msgspec.structs.replace(envelope, hash=envelope_hash(envelope))
