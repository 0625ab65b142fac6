"""The token bucket that limits how fast a connection may send, and the address creation is limited by."""

from __future__ import annotations

import pytest

from server.net.forwarded import Network, client_address, trusted_networks
from server.net.limits import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_the_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2.0, burst=5, clock=clock)
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]
    clock.now += 0.5
    assert bucket.take() and not bucket.take()
    clock.now += 10
    assert bucket.tokens == 5  # never more than the burst
    assert [bucket.take() for _ in range(6)] == [True] * 5 + [False]


def test_a_refused_take_takes_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, burst=2, clock=clock)
    assert bucket.take(2)
    clock.now += 0.5
    assert not bucket.take()
    assert bucket.tokens == pytest.approx(0.5)
    clock.now += 0.5
    assert bucket.take()


def test_a_clock_going_backwards_adds_nothing() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=1.0, burst=1, clock=clock)
    assert bucket.take()
    clock.now -= 50
    assert not bucket.take()


@pytest.mark.parametrize(("rate", "burst"), [(0, 5), (-1, 5), (1, 0.5)])
def test_nonsense_limits_are_refused(rate: float, burst: float) -> None:
    with pytest.raises(ValueError):
        TokenBucket(rate=rate, burst=burst)


PROXIES = trusted_networks("127.0.0.1, 10.0.0.0/8")


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "expected"),
    [
        # Straight from a client: its own address, whatever header it sends.
        ("203.0.113.9", "198.51.100.1", PROXIES, "203.0.113.9"),
        # Through a trusted proxy: the address the proxy saw.
        ("127.0.0.1", "198.51.100.7", PROXIES, "198.51.100.7"),
        # A client forging the header ahead of the proxy's hop is limited by its real address.
        ("127.0.0.1", "192.0.2.1, 198.51.100.7", PROXIES, "198.51.100.7"),
        # Two trusted hops (a load balancer in 10/8, then the local proxy).
        ("127.0.0.1", "198.51.100.7, 10.1.2.3", PROXIES, "198.51.100.7"),
        # No trusted proxies configured: the header is ignored.
        ("127.0.0.1", "198.51.100.7", (), "127.0.0.1"),
        # A garbled hop names nobody: the proxy's address is used.
        ("127.0.0.1", "not-an-address", PROXIES, "127.0.0.1"),
    ],
)
def test_the_rate_limited_address_believes_forwarded_for_only_from_trusted_proxies(
    peer: str, forwarded: str, trusted: tuple[Network, ...], expected: str
) -> None:
    assert client_address(peer, forwarded, trusted) == expected


def test_a_trusted_proxy_that_is_not_an_address_is_named() -> None:
    with pytest.raises(ValueError, match=r"'proxy\.local' is not an address"):
        trusted_networks("127.0.0.1,proxy.local")
