"""Standard JWTs an operator's own site mints (PyJWT here, as a site would) are accepted with the same
guarantees as Agon's own tokens: one canonical spelling, an expiry, Agon's claims and nothing unknown."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from protocol import errors
from protocol.errors import Refused
from server.net.auth import Claims, Tokens

SECRET = b"operator-and-agon-share-this-secret"


def seat(**extra: Any) -> dict[str, Any]:
    return {"contest": "duel", "role": "player", "seat": "ann", "exp": int(time.time()) + 600, **extra}


def refused(tokens: Tokens, token: str) -> str:
    with pytest.raises(Refused) as caught:
        tokens.verify(token)
    return caught.value.code


def test_an_hs256_jwt_signed_with_the_server_secret_is_a_seat_token() -> None:
    token = jwt.encode(seat(gen=2, iat=int(time.time()), iss="community.example"), SECRET, algorithm="HS256")
    claims = Tokens(SECRET).verify(token)
    assert claims == Claims(contest="duel", role="player", seat="ann", exp=claims.exp, gen=2)


def test_expired_forged_unsigned_or_strange_jwts_are_refused() -> None:
    tokens = Tokens(SECRET)
    assert refused(tokens, jwt.encode(seat(exp=int(time.time()) - 5), SECRET, algorithm="HS256")) == (
        errors.EXPIRED_TOKEN
    )
    no_expiry = {k: v for k, v in seat().items() if k != "exp"}
    assert refused(tokens, jwt.encode(no_expiry, SECRET, algorithm="HS256")) == errors.BAD_TOKEN
    assert (
        refused(tokens, jwt.encode(seat(), b"another-site-secret-0123456789abcdef", algorithm="HS256"))
        == errors.BAD_TOKEN
    )
    assert refused(tokens, jwt.encode(seat(), None, algorithm="none")) == errors.BAD_TOKEN
    assert refused(tokens, jwt.encode(seat(admin=True), SECRET, algorithm="HS256")) == errors.BAD_TOKEN
    assert refused(tokens, jwt.encode(seat(role="emperor"), SECRET, algorithm="HS256")) == errors.BAD_TOKEN


def test_a_jwt_has_one_spelling_only() -> None:
    tokens = Tokens(SECRET)
    token = jwt.encode(seat(), SECRET, algorithm="HS256")
    header, payload, signature = token.split(".")
    assert tokens.verify(token).seat == "ann"
    # The same signature bytes spelled with padding, or with the unused low bits of the last character set.
    last = signature[-1]
    twin = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    flipped = twin[twin.index(last) ^ 1]
    for variant in (f"{token}=", f"{header}.{payload}.{signature[:-1]}{flipped}", f"{header}=.{payload}.{signature}"):
        assert refused(tokens, variant) == errors.BAD_TOKEN


def test_an_operators_public_key_verifies_its_es256_jwts_and_only_when_configured() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    token = jwt.encode(seat(), key, algorithm="ES256")
    assert Tokens(SECRET, public_key=public).verify(token).seat == "ann"
    assert refused(Tokens(SECRET), token) == errors.BAD_TOKEN
    other = ec.generate_private_key(ec.SECP256R1())
    assert refused(Tokens(SECRET, public_key=public), jwt.encode(seat(), other, algorithm="ES256")) == (
        errors.BAD_TOKEN
    )


def test_a_rotated_secret_still_verifies_jwts_during_its_grace_period_only() -> None:
    token = jwt.encode(seat(), SECRET, algorithm="HS256")
    now = int(time.time())
    assert Tokens(b"the-new-secret-0123456789abcdef-0123", previous=[(SECRET, now + 60)]).verify(token).seat == "ann"
    assert (
        refused(Tokens(b"the-new-secret-0123456789abcdef-0123", previous=[(SECRET, now - 1)]), token)
        == errors.BAD_TOKEN
    )
