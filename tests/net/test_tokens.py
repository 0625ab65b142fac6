"""Tokens: signed claims that any process with the same secret accepts, and nothing else does. Agon issues
standard JWTs (HS256), and still accepts the ``agon1.`` tokens it issued before."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from websockets.asyncio.client import connect

from protocol.errors import Refused
from server.net.auth import Claims, Tokens, server_secret
from tests.net.conftest import Start
from tests.net.test_server import open_duel


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def legacy(secret: bytes, claims: dict[str, Any]) -> str:
    """An ``agon1.`` token as Agon 0.1 issued it: sorted compact JSON claims, HMAC-SHA256 over ``agon1.<claims>``."""
    signed = "agon1." + b64(json.dumps(claims, sort_keys=True, separators=(",", ":")).encode())
    return f"{signed}.{b64(hmac.new(secret, signed.encode(), hashlib.sha256).digest())}"


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_token_carries_contest_role_seat_and_expiry() -> None:
    clock = Clock()
    tokens = Tokens(b"secret", clock)
    token = tokens.issue("duel", "player", "ann", ttl=60)
    assert tokens.verify(token) == Claims(contest="duel", role="player", seat="ann", exp=int(clock.now) + 60)


def test_an_issued_token_is_a_standard_hs256_jwt_with_the_documented_claims_only() -> None:
    secret = b"a-secret-an-operators-site-shares-with-agon"
    token = Tokens(secret).issue("duel", "player", "ann", ttl=600, gen=2)
    assert jwt.get_unverified_header(token) == {"alg": "HS256"}  # no "typ": every character counts in a QR code
    claims = jwt.decode(token, secret, algorithms=["HS256"])  # what any JWT library reads, with the secret
    assert claims == {"contest": "duel", "role": "player", "seat": "ann", "gen": 2, "exp": claims["exp"]}
    assert abs(claims["exp"] - (time.time() + 600)) < 5
    first = jwt.decode(Tokens(secret).issue("duel", "gm", "gm", ttl=600), secret, algorithms=["HS256"])
    assert "gen" not in first  # generation 0, the first invitation of a seat, is left out


def test_a_jwt_costs_at_most_16_characters_more_than_an_agon1_token_even_at_the_longest() -> None:
    """Invitation links carry the token in a URL fragment and a QR code: the JWT adds only its header."""
    secret = b"s" * 64
    contest, seat = "c" * 64, "s" * 64  # the longest ids the protocol allows
    token = Tokens(secret).issue(contest, "spectator", seat, ttl=365 * 24 * 3600, gen=999_999)
    claims = jwt.decode(token, secret, algorithms=["HS256"])
    assert len(token) <= len(legacy(secret, claims)) + 16
    assert len(token) < 360


def test_another_process_with_the_same_secret_accepts_it() -> None:
    token = Tokens(b"shared").issue("duel", "gm", "gm", ttl=60)
    assert Tokens(b"shared").verify(token).role == "gm"
    with pytest.raises(Refused) as refused:
        Tokens(b"other").verify(token)
    assert refused.value.code == "auth/bad_token"


def test_a_token_expires() -> None:
    clock = Clock()
    tokens = Tokens(b"secret", clock)
    token = tokens.issue("duel", "spectator", "~spectator", ttl=60)
    clock.now += 59
    tokens.verify(token)
    clock.now += 1
    with pytest.raises(Refused) as refused:
        tokens.verify(token)
    assert refused.value.code == "auth/expired_token"
    with pytest.raises(Refused):
        tokens.check_unexpired(Claims(contest="duel", role="gm", seat="gm", exp=int(clock.now)))


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: t + "x",
        lambda t: b64(b'{"alg":"none"}') + "." + t.split(".")[1] + ".",
        lambda t: b64(b'{"alg":"HS384"}') + "." + t.split(".", 1)[1],
        lambda t: (
            t.split(".")[0]
            + "."
            + b64(b'{"contest":"duel","exp":9999999999,"role":"gm","seat":"gm"}')
            + "."
            + t.split(".")[2]
        ),
        lambda t: ".".join(t.split(".")[:2]),
        lambda t: t.split(".")[0] + "." + t.split(".")[1][::-1] + "." + t.split(".")[2],
        lambda t: t[:-3] + ("AAA" if not t.endswith("AAA") else "BBB"),
        lambda t: "",
        lambda t: "agon1.é.é",
        lambda t: "agon1..",
        lambda t: "é.é.é",
        lambda t: "..",
    ],
)
@pytest.mark.parametrize("kind", ["jwt", "agon1"])
def test_a_tampered_token_is_a_bad_token(mangle: object, kind: str) -> None:
    tokens = Tokens(b"secret")
    if kind == "jwt":
        token = tokens.issue("duel", "player", "ann", ttl=60)
    else:
        token = legacy(b"secret", {"contest": "duel", "exp": int(time.time()) + 60, "role": "player", "seat": "ann"})
    assert tokens.verify(token).seat == "ann"
    with pytest.raises(Refused) as refused:
        tokens.verify(mangle(token))  # type: ignore[operator]
    assert refused.value.code == "auth/bad_token"


def test_agon1_tokens_issued_before_the_upgrade_are_still_accepted_until_they_expire() -> None:
    clock = Clock()
    tokens = Tokens(b"secret", clock)
    claims = {"contest": "duel", "exp": int(clock.now) + 60, "gen": 1, "role": "player", "seat": "ann"}
    assert tokens.verify(legacy(b"secret", claims)) == Claims(
        contest="duel", role="player", seat="ann", exp=int(clock.now) + 60, gen=1
    )
    with pytest.raises(Refused) as forged:
        tokens.verify(legacy(b"another-secret", claims))
    assert forged.value.code == "auth/bad_token"
    clock.now += 60
    with pytest.raises(Refused) as expired:
        tokens.verify(legacy(b"secret", claims))
    assert expired.value.code == "auth/expired_token"


@pytest.mark.parametrize("kind", ["jwt", "agon1"])
def test_tokens_of_a_rotated_secret_are_accepted_during_its_grace_period_only(kind: str) -> None:
    clock = Clock()
    old, new = b"the-secret-before-the-rotation", b"the-secret-after-the-rotation"
    if kind == "jwt":
        token = Tokens(old, clock).issue("duel", "gm", "gm", ttl=3600)
    else:
        token = legacy(old, {"contest": "duel", "exp": int(clock.now) + 3600, "role": "gm", "seat": "gm"})
    rotated = Tokens(new, clock, previous=[(old, int(clock.now) + 60)])
    assert rotated.verify(token).role == "gm"
    clock.now += 60
    with pytest.raises(Refused) as refused:
        rotated.verify(token)
    assert refused.value.code == "auth/bad_token"


def test_signed_claims_that_are_not_claims_are_a_bad_token() -> None:
    body = base64.urlsafe_b64encode(b'{"contest": 1}').rstrip(b"=").decode()
    signed = f"agon1.{body}"
    signature = hmac.new(b"secret", signed.encode(), hashlib.sha256).digest()
    token = f"{signed}.{base64.urlsafe_b64encode(signature).rstrip(b'=').decode()}"
    with pytest.raises(Refused) as refused:
        Tokens(b"secret").verify(token)
    assert refused.value.code == "auth/bad_token"


def test_the_secret_is_created_once_private_and_kept(tmp_path: Path) -> None:
    data = tmp_path / "agon-data"
    first = server_secret(data, None)
    assert len(first) == 64
    assert stat.S_IMODE((data / "secret").stat().st_mode) == 0o600
    assert server_secret(data, None) == first
    assert server_secret(data, b"from-the-environment") == b"from-the-environment"
    assert [p.name for p in data.iterdir()] == ["secret"]


def test_processes_starting_together_agree_on_one_secret(tmp_path: Path) -> None:
    found: list[bytes] = []
    threads = [threading.Thread(target=lambda: found.append(server_secret(tmp_path, None))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1
    assert sorted(os.listdir(tmp_path)) == ["secret"]


B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def other_spellings(segment: str) -> list[str]:
    """Spellings of the same bytes that a lenient base64 decoder accepts: padding, and unused low bits set."""
    spellings = [segment + "=" * (-len(segment) % 4 or 4), segment + "=="]
    unused = {2: 4, 3: 2}.get(len(segment) % 4, 0)  # bits of the last character that carry no data
    if unused:
        last = B64URL.index(segment[-1])
        spellings += [segment[:-1] + B64URL[last | bit] for bit in range(1, 2**unused) if last | bit != last]
    return spellings


@pytest.mark.parametrize("seat", ["ann", "anna", "annie", "~spectator"])  # every length modulo 3 of a segment
@pytest.mark.parametrize("kind", ["jwt", "agon1"])
def test_only_the_canonical_spelling_of_a_token_is_accepted(kind: str, seat: str) -> None:
    tokens = Tokens(b"secret")
    if kind == "jwt":
        token = tokens.issue("duel", "player", seat, ttl=60)
    else:
        token = legacy(b"secret", {"contest": "duel", "exp": int(time.time()) + 60, "role": "player", "seat": seat})
    segments = token.split(".")
    variants = [
        ".".join([*segments[:i], spelled, *segments[i + 1 :]])
        for i, segment in enumerate(segments)
        if kind == "jwt" or i > 0
        for spelled in other_spellings(segment)
    ]
    assert len(variants) >= (6 if kind == "jwt" else 4)
    for variant in variants:
        assert variant != token
        with pytest.raises(Refused) as refused:
            tokens.verify(variant)
        assert refused.value.code == "auth/bad_token", variant
    assert tokens.verify(token).seat == seat


NOW = 1_700_000_000
LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: the last time a token may name
TIME_CLAIMS = {"contest": '"duel"', "role": '"player"', "seat": '"ann"', "exp": str(NOW + 600)}


def signed_jwt(secret: bytes, claims: dict[str, str]) -> str:
    """An HS256 JWT whose claims are written as raw JSON text (so a number too large for a float, NaN or
    ``1e400`` reaches the server exactly as a hostile site would write it)."""
    body = "{" + ",".join(f'"{name}":{value}' for name, value in claims.items()) + "}"
    signing = b64(b'{"alg":"HS256"}') + "." + b64(body.encode())
    return f"{signing}.{b64(hmac.new(secret, signing.encode(), hashlib.sha256).digest())}"


NOT_TIMES = [
    "1" + "0" * 400,  # 10^400: a JSON number too large for any date (and for a float)
    "1e400",
    str(2**63),
    str(LAST_SECOND + 1),
    "-1",
    "-Infinity",
    "Infinity",
    "NaN",
    '"NaN"',
    '"1700000000"',
    "true",
    "false",
    "null",
    "[]",
    "{}",
]


@pytest.mark.parametrize("value", NOT_TIMES)
@pytest.mark.parametrize("claim", ["exp", "iat", "nbf"])
def test_a_time_claim_that_is_not_a_time_is_a_bad_token(claim: str, value: str) -> None:
    tokens = Tokens(b"secret", Clock(NOW))
    assert tokens.verify(signed_jwt(b"secret", TIME_CLAIMS)).exp == NOW + 600
    with pytest.raises(Refused) as refused:
        tokens.verify(signed_jwt(b"secret", {**TIME_CLAIMS, claim: value}))
    assert refused.value.code == "auth/bad_token", refused.value.message
    assert claim in refused.value.message


@pytest.mark.parametrize(("claim", "value"), [("exp", "1" + "0" * 400), ("exp", "-1"), ("gen", "-1")])
def test_an_agon1_token_whose_claims_are_out_of_range_is_a_bad_token(claim: str, value: str) -> None:
    claims = {"contest": "duel", "exp": NOW + 600, "role": "player", "seat": "ann"}
    body = json.dumps(claims, sort_keys=True, separators=(",", ":")).replace(
        f'"{claim}":{claims[claim]}' if claim in claims else "{", f'"{claim}":{value}' if claim in claims else "{"
    )
    if claim not in claims:
        body = body.replace("{", f'{{"{claim}":{value},', 1)
    signing = "agon1." + b64(body.encode())
    token = f"{signing}.{b64(hmac.new(b'secret', signing.encode(), hashlib.sha256).digest())}"
    with pytest.raises(Refused) as refused:
        Tokens(b"secret", Clock(NOW)).verify(token)
    assert refused.value.code == "auth/bad_token"


def test_time_claims_in_range_are_taken_on_the_servers_clock() -> None:
    tokens = Tokens(b"secret", Clock(NOW))
    ok = [
        {"iat": str(NOW), "nbf": str(NOW)},
        {"iat": f"{NOW - 10}.25", "nbf": f"{NOW}.0"},  # RFC 7519: a NumericDate may be a fraction of a second
        {"iat": "0", "nbf": "0"},
        {"exp": str(LAST_SECOND)},
    ]
    for claims in ok:
        assert tokens.verify(signed_jwt(b"secret", {**TIME_CLAIMS, **claims})).seat == "ann", claims
    for claim in ("iat", "nbf"):  # not yet valid on this server's clock
        with pytest.raises(Refused) as refused:
            tokens.verify(signed_jwt(b"secret", {**TIME_CLAIMS, claim: str(NOW + 60)}))
        assert refused.value.code == "auth/bad_token" and claim in refused.value.message
    with pytest.raises(Refused) as expired:
        tokens.verify(signed_jwt(b"secret", {**TIME_CLAIMS, "exp": str(NOW)}))
    assert expired.value.code == "auth/expired_token"
    with pytest.raises(Refused) as fractional:  # Agon's expiry is whole seconds, as Agon issues it
        tokens.verify(signed_jwt(b"secret", {**TIME_CLAIMS, "exp": f"{NOW + 600}.5"}))
    assert fractional.value.code == "auth/bad_token"


def test_a_jwt_header_nested_thousands_deep_is_a_bad_token_not_a_crash() -> None:
    header = b'{"alg":"HS256","x":' + b"[" * 3000 + b"]" * 3000 + b"}"
    with pytest.raises(Refused) as refused:
        Tokens(b"secret").verify(b64(header) + "." + b64(b"{}") + "." + b64(b"signature"))
    assert refused.value.code == "auth/bad_token"


async def test_a_signed_token_with_an_expiry_too_large_is_refused_at_the_hello_with_nothing_attached(
    start: Start, caplog: pytest.LogCaptureFixture
) -> None:
    server = await start()
    gm, created = await open_duel(server)
    contest = created.contest
    feed = server.context.hub.get(contest)
    assert feed is not None
    before = feed.followers
    assert server.settings.secret is not None
    claims = {"contest": f'"{contest}"', "role": '"player"', "seat": '"ann"', "exp": "1" + "0" * 400}
    token = signed_jwt(server.settings.secret, claims)  # genuine: signed with the server's own secret
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "follow": [{"contest": contest, "token": token}]}))
        error = json.loads(await ws.recv())
        assert (error["type"], error["code"], error["contest"]) == ("error", "auth/bad_token", contest)
        assert feed.followers == before
        await ws.send(json.dumps({"type": "ping", "nonce": 1}))
        assert json.loads(await ws.recv()) == {"type": "pong", "nonce": 1}  # nothing else came: no welcome
    assert feed.followers == before
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL") or r.exc_info]
    await gm.close()
