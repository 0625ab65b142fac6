"""Signed tokens: who may follow which contest, as which seat, until when.

A token is ``agon1.<claims>.<signature>``: the claims as canonical JSON in unpadded base64url, and
HMAC-SHA256 over the text ``agon1.<claims>`` with the server secret, also base64url. Any process holding
the same secret verifies any other's tokens; nothing is stored per token. Tokens travel in frames (or an
``Authorization`` header), never in URLs, and are never logged.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from protocol import errors
from protocol.codec import canonical
from protocol.common import SPECTATOR
from protocol.errors import Refused
from protocol.messages import TokenRole

log = logging.getLogger(__name__)

__all__ = ["SPECTATOR", "Claims", "Tokens", "new_owner_id", "server_secret"]

PREFIX = "agon1"
SECRET_FILE = "secret"


class Claims(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a token says. ``seat`` is the principal: a seat id, ``~spectator``, or an owner id."""

    contest: str  # "" in an owner token
    role: TokenRole
    seat: str
    exp: int  # unix seconds
    gen: int = 0  # the seat's invitation generation: a re-issued invitation revokes the older ones


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    """The bytes of a canonical segment: unpadded base64url with no unused bit set. Any other spelling of
    the same bytes is refused, so a token has exactly one accepted form."""
    if not text or len(text) > 8192:
        raise ValueError("empty or oversized segment")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("not the canonical encoding")
    return data


class Tokens:
    """Issues and verifies tokens with one secret."""

    def __init__(self, secret: bytes, clock: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("a token secret must not be empty")
        self._secret = secret
        self._clock = clock

    def now(self) -> int:
        return int(self._clock())

    def _sign(self, signed: str) -> bytes:
        return hmac.new(self._secret, signed.encode("ascii"), hashlib.sha256).digest()

    def issue(self, contest: str, role: TokenRole, seat: str, ttl: int, gen: int = 0) -> str:
        claims = Claims(contest=contest, role=role, seat=seat, exp=self.now() + ttl, gen=gen)
        signed = f"{PREFIX}.{_b64(canonical(claims))}"
        return f"{signed}.{_b64(self._sign(signed))}"

    def verify(self, token: str) -> Claims:
        """The claims of a genuine, unexpired token; else Refused ``auth/bad_token`` or ``auth/expired_token``."""
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != PREFIX:
            raise Refused(errors.BAD_TOKEN, "token: not an Agon token")
        signed = f"{parts[0]}.{parts[1]}"
        try:
            signature = _unb64(parts[2])
            payload = _unb64(parts[1])
            expected = self._sign(signed)
        except (ValueError, binascii.Error, UnicodeEncodeError):
            raise Refused(errors.BAD_TOKEN, "token: malformed") from None
        if not hmac.compare_digest(signature, expected):
            raise Refused(errors.BAD_TOKEN, "token: the signature does not match (forged, or from another server)")
        try:
            claims = msgspec.json.decode(payload, type=Claims, strict=True)
        except (msgspec.DecodeError, msgspec.ValidationError):
            raise Refused(errors.BAD_TOKEN, "token: malformed claims") from None
        if claims.exp <= self.now():
            raise Refused(errors.EXPIRED_TOKEN, "token: expired; ask the GM for a new invitation")
        return claims

    def check_unexpired(self, claims: Claims) -> None:
        if claims.exp <= self.now():
            raise Refused(errors.EXPIRED_TOKEN, "token: expired; ask the GM for a new invitation")


def new_owner_id() -> str:
    return secrets.token_hex(12)


def server_secret(data_dir: Path, given: bytes | None) -> bytes:
    """The secret given (AGON_SECRET), else the one in ``data_dir/secret``, created (mode 0600) on first use.

    Creation is atomic: the secret is written to a private temporary file that is then hard-linked into
    place, so processes starting together all end up with the one secret that won."""
    if given:
        return given
    path = data_dir / SECRET_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        temporary = data_dir / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_hex(32) + "\n")
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
                log.info("created a new server secret in %s", path)
        finally:
            temporary.unlink(missing_ok=True)
    text = path.read_text().strip()
    if not text:
        raise ValueError(f"{path} is empty: delete it to generate a new secret, or set AGON_SECRET")
    return text.encode()
