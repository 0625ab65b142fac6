"""Tokens: signed claims that any process with the same secret accepts, and nothing else does."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from protocol.errors import Refused
from server.net.auth import Claims, Tokens, server_secret


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_token_carries_contest_role_seat_and_expiry() -> None:
    clock = Clock()
    tokens = Tokens(b"secret", clock)
    token = tokens.issue("duel", "player", "ann", ttl=60)
    assert token.startswith("agon1.") and token.count(".") == 2
    assert tokens.verify(token) == Claims(contest="duel", role="player", seat="ann", exp=int(clock.now) + 60)


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
        lambda t: t.replace("agon1.", "agon2."),
        lambda t: ".".join(t.split(".")[:2]),
        lambda t: t.split(".")[0] + "." + t.split(".")[1][::-1] + "." + t.split(".")[2],
        lambda t: t[:-3] + ("AAA" if not t.endswith("AAA") else "BBB"),
        lambda t: "",
        lambda t: "agon1.é.é",
        lambda t: "agon1..",
    ],
)
def test_a_tampered_token_is_a_bad_token(mangle: object) -> None:
    tokens = Tokens(b"secret")
    token = tokens.issue("duel", "player", "ann", ttl=60)
    with pytest.raises(Refused) as refused:
        tokens.verify(mangle(token))  # type: ignore[operator]
    assert refused.value.code == "auth/bad_token"


def test_signed_claims_that_are_not_claims_are_a_bad_token() -> None:
    import base64
    import hashlib
    import hmac

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


def test_only_the_canonical_spelling_of_a_token_is_accepted() -> None:
    tokens = Tokens(b"secret")
    token = tokens.issue("duel", "player", "ann", ttl=60)
    prefix, claims, signature = token.split(".")
    variants = [f"{prefix}.{spelled}.{signature}" for spelled in other_spellings(claims)]
    variants += [f"{prefix}.{claims}.{spelled}" for spelled in other_spellings(signature)]
    assert len(variants) >= 4
    for variant in variants:
        assert variant != token
        with pytest.raises(Refused) as refused:
            tokens.verify(variant)
        assert refused.value.code == "auth/bad_token", variant
    assert tokens.verify(token).seat == "ann"
