"""The client's address behind proxies: ``X-Forwarded-For`` is believed only from proxies the operator trusts.

A proxy appends the address it received the connection from to ``X-Forwarded-For``; anything to the left
of it may be typed by the client. So the client is the rightmost address that is not a trusted proxy,
read from the right while each hop is trusted. With no trusted proxies the header is ignored.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(text: str | None) -> tuple[Network, ...]:
    """``AGON_TRUSTED_PROXIES``: comma-separated addresses or networks (``10.0.0.0/8``); ValueError names
    the entry that is neither."""
    networks = []
    for entry in (text or "").split(","):
        if entry.strip():
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                raise ValueError(f"AGON_TRUSTED_PROXIES: {entry.strip()!r} is not an address or a network") from None
    return tuple(networks)


def trusted(address: str, networks: Iterable[Network]) -> bool:
    """Whether ``address`` is in one of ``networks``."""
    try:
        parsed = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def client_address(peer: str, forwarded_for: str | None, proxies: tuple[Network, ...]) -> str:
    """The address to rate-limit: the peer, or when the peer is a trusted proxy, the rightmost hop of
    ``X-Forwarded-For`` that is not a trusted proxy (the leftmost hop when all of them are)."""
    if not proxies or not forwarded_for or not trusted(peer, proxies):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not trusted(hop, proxies):
            try:
                return str(ipaddress.ip_address(hop.strip("[]")))
            except ValueError:
                return peer  # a garbled hop: the client wrote it, so it names nobody
    return hops[0] if hops else peer
