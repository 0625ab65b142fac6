"""Signed tokens: who may follow which contest, as which seat, until when.

A token is a standard JWT (RFC 7519): Agon issues HS256 JWTs signed with the server secret, with the claims
``contest``, ``role``, ``seat``, ``exp`` and ``gen`` (left out while 0) and the header ``{"alg":"HS256"}``
only, so invitation links stay short. An operator's site mints the same tokens (HS256 with the server secret,
or RS256 / ES256 / EdDSA with the operator's public key, ``AGON_JWT_PUBLIC_KEY``), so a community site or bot
can invite players without Agon's lobby. Every segment is accepted in its one canonical spelling only.

Agon 0.1 issued ``agon1.<claims>.<signature>`` tokens (canonical JSON claims in unpadded base64url, and
HMAC-SHA256 over ``agon1.<claims>`` with the server secret); they are still accepted until they expire.

Any process holding the same secret verifies any other's tokens; nothing is stored per token. Tokens travel
in frames (or an ``Authorization`` header), never in URLs, and are never logged.
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
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import jwt
import msgspec

from protocol import errors
from protocol.common import SPECTATOR
from protocol.errors import Refused
from protocol.messages import TokenRole

log = logging.getLogger(__name__)

__all__ = ["SPECTATOR", "Claims", "Tokens", "new_owner_id", "server_secret"]

LEGACY_PREFIX = "agon1"
"""The tokens Agon 0.1 issued; accepted (never issued) until they expire, by every release before 1.0."""
ISSUED_ALGORITHM = "HS256"
MIN_SECRET_BYTES = 32
"""RFC 7518 asks for an HS256 key at least as long as the hash; a shorter secret works, with a warning."""
PUBLIC_KEY_ALGORITHMS = ("RS256", "ES256", "EdDSA")
REGISTERED_CLAIMS = frozenset({"iss", "sub", "aud", "exp", "nbf", "iat", "jti"})
"""JWT claims that are times (exp, nbf, iat: checked here) or that say who minted the token; other unknown claims
are refused."""
SECRET_FILE = "secret"
LAST_SECOND = 253_402_300_799
"""9999-12-31T23:59:59Z: the latest time a token may name (``exp``, ``nbf``, ``iat``); every time claim is a
number from 0 to this, so no token's time overflows a float, a timer or a date."""
TIME_CLAIMS = ("exp", "nbf", "iat")
PREVIOUS_FILE = "secret.previous"
"""After ``agon admin rotate-secret``: the secret before the rotation and, after a space, until when (unix
seconds) tokens signed with it are still accepted."""


class Claims(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What a token says. ``seat`` is the principal: a seat id, ``~spectator``, or an owner id."""

    contest: str  # "" in an owner token
    role: TokenRole
    seat: str
    exp: Annotated[int, msgspec.Meta(ge=0, le=LAST_SECOND)]  # unix seconds
    # The seat's invitation generation: a re-issued invitation revokes the older ones.
    gen: Annotated[int, msgspec.Meta(ge=0)] = 0


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

    def __init__(
        self,
        secret: bytes,
        clock: Callable[[], float] = time.time,
        previous: Sequence[tuple[bytes, int]] = (),
        public_key: bytes | None = None,
    ) -> None:
        """``previous``: secrets of before a rotation and until when (unix seconds) their tokens are still
        accepted; tokens are only ever issued with ``secret``."""
        if not secret:
            raise ValueError("a token secret must not be empty")
        self._secret = secret
        self._clock = clock
        self._previous = [(old, until) for old, until in previous if old and old != secret]
        self._public_key = public_key  # PEM: an operator's key for RS256 / ES256 / EdDSA JWTs
        if len(secret) < MIN_SECRET_BYTES:
            log.warning("the token secret is shorter than %d bytes: use a longer AGON_SECRET", MIN_SECRET_BYTES)

    def now(self) -> int:
        return int(self._clock())

    def _sign(self, signed: str, secret: bytes | None = None) -> bytes:
        return hmac.new(secret or self._secret, signed.encode("ascii"), hashlib.sha256).digest()

    def _genuine(self, signed: str, signature: bytes) -> bool:
        """Signed with the secret, or with a previous one still in its grace period."""
        if hmac.compare_digest(signature, self._sign(signed)):
            return True
        now = self.now()
        return any(
            until > now and hmac.compare_digest(signature, self._sign(signed, old)) for old, until in self._previous
        )

    def issue(self, contest: str, role: TokenRole, seat: str, ttl: int, gen: int = 0) -> str:
        """An HS256 JWT: the claims in a fixed order, ``gen`` only once a seat's invitation was re-issued."""
        claims: dict[str, Any] = {"contest": contest, "role": role, "seat": seat}
        if gen:
            claims["gen"] = gen
        claims["exp"] = self.now() + ttl
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jwt.InsecureKeyLengthWarning)  # said once, at start
            return jwt.encode(claims, self._secret, algorithm=ISSUED_ALGORITHM, headers={"typ": None})

    def verify(self, token: str) -> Claims:
        """The claims of a genuine, unexpired token; else Refused ``auth/bad_token`` or ``auth/expired_token``."""
        parts = token.split(".")
        if len(parts) != 3:
            raise Refused(errors.BAD_TOKEN, "token: not an Agon token")
        if parts[0] != LEGACY_PREFIX:
            return self._verify_jwt(token, parts)
        return self._verify_legacy(parts)

    def _verify_legacy(self, parts: list[str]) -> Claims:
        """An ``agon1.`` token Agon 0.1 issued."""
        signed = f"{parts[0]}.{parts[1]}"
        try:
            signature = _unb64(parts[2])
            payload = _unb64(parts[1])
            signed.encode("ascii")
        except (ValueError, binascii.Error, UnicodeEncodeError):
            raise Refused(errors.BAD_TOKEN, "token: malformed") from None
        if not self._genuine(signed, signature):
            raise Refused(errors.BAD_TOKEN, "token: the signature does not match (forged, or from another server)")
        try:
            claims = msgspec.json.decode(payload, type=Claims, strict=True)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            raise Refused(errors.BAD_TOKEN, "token: malformed claims") from None
        if claims.exp <= self.now():
            raise Refused(errors.EXPIRED_TOKEN, "token: expired; ask the GM for a new invitation")
        return claims

    def _verify_jwt(self, token: str, parts: list[str]) -> Claims:
        """A JWT Agon issued or an operator's site minted: HS256 with the server secret (or a previous one in
        its grace period), or RS256 / ES256 / EdDSA with the operator's public key. Every segment in its one
        canonical spelling, an expiry (checked on this object's clock), Agon's claims and nothing unknown;
        ``exp``, ``nbf`` and ``iat`` are times (see ``_time``), ``nbf`` and ``iat`` not after now."""
        try:
            header = msgspec.json.decode(_unb64(parts[0]), type=dict[str, Any])
            _unb64(parts[1])
            _unb64(parts[2])
        except (ValueError, binascii.Error, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            raise Refused(errors.BAD_TOKEN, "token: malformed") from None
        algorithm = header.get("alg")
        if algorithm == "HS256":
            now = self.now()
            keys: list[Any] = [self._secret, *(old for old, until in self._previous if until > now)]
        elif algorithm in PUBLIC_KEY_ALGORITHMS and self._public_key is not None:
            keys = [self._public_key]
        else:
            raise Refused(errors.BAD_TOKEN, f"token: algorithm {algorithm!r} is not accepted here")
        decoded: dict[str, Any] | None = None
        for key in keys:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", jwt.InsecureKeyLengthWarning)
                    decoded = jwt.decode(
                        token,
                        key,
                        algorithms=[str(algorithm)],
                        # Times are checked below, on this object's clock, after their types and ranges.
                        options={
                            "require": ["exp"],
                            "verify_aud": False,
                            "verify_exp": False,
                            "verify_iat": False,
                            "verify_nbf": False,
                        },
                    )
                break
            except jwt.InvalidSignatureError:
                continue
            except jwt.InvalidTokenError as error:
                raise Refused(errors.BAD_TOKEN, f"token: {error}") from None
        if decoded is None:
            raise Refused(errors.BAD_TOKEN, "token: the signature does not match (forged, or from another server)")
        now = self.now()
        times = {name: _time(name, decoded[name]) for name in TIME_CLAIMS if name in decoded}
        for name in ("nbf", "iat"):
            if times.get(name, 0) > now:
                raise Refused(errors.BAD_TOKEN, f"token: {name}: not valid yet (a time after now on this server)")
        agon = {name: value for name, value in decoded.items() if name not in REGISTERED_CLAIMS or name == "exp"}
        try:
            claims = msgspec.convert(agon, type=Claims, strict=True)
        except msgspec.ValidationError as error:
            raise Refused(errors.BAD_TOKEN, f"token: claims: {error}") from None
        if claims.exp <= now:
            raise Refused(errors.EXPIRED_TOKEN, "token: expired; ask for a new invitation")
        # Thousands of connections follow with the same few contests, roles and seats: one copy of each.
        return msgspec.structs.replace(
            claims, contest=sys.intern(claims.contest), role=sys.intern(claims.role), seat=sys.intern(claims.seat)
        )

    def check_unexpired(self, claims: Claims) -> None:
        if claims.exp <= self.now():
            raise Refused(errors.EXPIRED_TOKEN, "token: expired; ask the GM for a new invitation")


def _time(name: str, value: object) -> float:
    """A time claim (RFC 7519 NumericDate): a JSON number from 0 to ``LAST_SECOND``, a fraction allowed (``exp``
    must be whole, which ``Claims`` checks); not a boolean, a string, NaN, an infinity or a number too large."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= LAST_SECOND:
        raise Refused(errors.BAD_TOKEN, f"token: {name}: not a time (unix seconds from 0 to {LAST_SECOND})")
    return float(value)


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


def previous_secrets(data_dir: Path, given: bytes | None, until: int | None) -> list[tuple[bytes, int]]:
    """Secrets still accepted after a rotation: AGON_SECRET_PREVIOUS (until AGON_SECRET_PREVIOUS_UNTIL,
    required with it), and the one ``agon admin rotate-secret`` kept in ``data_dir/secret.previous``."""
    previous: list[tuple[bytes, int]] = []
    if given:
        if until is None:
            raise ValueError("AGON_SECRET_PREVIOUS needs AGON_SECRET_PREVIOUS_UNTIL (unix seconds): until when")
        previous.append((given, until))
    path = data_dir / PREVIOUS_FILE
    if path.is_file():
        text, _, when = path.read_text().strip().rpartition(" ")
        if not text or not when.isdigit():
            raise ValueError(f"{path}: expected '<secret> <unix seconds>'")
        previous.append((text.encode(), int(when)))
    return previous


def rotate_secret_file(data_dir: Path, grace: float, clock: Callable[[], float] = time.time) -> str:
    """Replace ``data_dir/secret`` with a new one, keeping the old one accepted for ``grace`` seconds.
    Returns the end of the grace period (ISO 8601, UTC)."""
    path = data_dir / SECRET_FILE
    if not path.is_file():
        raise ValueError(f"no secret in {data_dir} to rotate (with AGON_SECRET, set AGON_SECRET_PREVIOUS instead)")
    old = path.read_text().strip()
    until = int(clock() + grace)
    _write_private(data_dir / PREVIOUS_FILE, f"{old} {until}\n")
    _write_private(path, secrets.token_hex(32) + "\n")
    log.info("rotated the server secret in %s", path)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(until))


def _write_private(path: Path, text: str) -> None:
    """Write a file only its owner may read, atomically (a reader sees the old or the new text)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.replace(temporary, path)
