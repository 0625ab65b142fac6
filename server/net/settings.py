"""Settings of the network server, from arguments and the environment."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from server import datadir
from server.net.forwarded import Network, trusted_networks

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_DATA = Path("agon-data")


@dataclass(frozen=True)
class Settings:
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    data_dir: Path = DEFAULT_DATA  # where the server secret lives (unless AGON_SECRET is given)
    secret: bytes | None = None  # AGON_SECRET; else read or created in data_dir
    previous_secret: bytes | None = None  # AGON_SECRET_PREVIOUS: still accepted after a rotation...
    previous_until: int | None = None  # ...until AGON_SECRET_PREVIOUS_UNTIL (unix seconds)
    jwt_public_key: bytes | None = None  # AGON_JWT_PUBLIC_KEY (PEM) or AGON_JWT_PUBLIC_KEY_FILE: operators' JWTs
    create_key: str | None = None  # AGON_CREATE_KEY: when set, creating a contest requires it
    origins: tuple[str, ...] | None = None  # AGON_ORIGINS (comma-separated); None: the server's own, or no Origin
    hosts: tuple[str, ...] | None = None  # AGON_HOSTS: names the Host header may carry; None: see host_allowed
    trusted_proxies: tuple[Network, ...] = ()  # AGON_TRUSTED_PROXIES: whose X-Forwarded-For is believed
    max_frame: int = 64 * 1024  # bytes; a bigger frame closes the connection with 1009
    rate: float = 20.0  # frames per second a connection may send on average...
    burst: float = 60.0  # ...and at once; beyond: rate/limited, then close 1008
    max_follows: int = 64  # contests one connection may follow
    create_rate: float = 0.2  # contests one connection may open per second on average...
    create_burst: float = 10.0  # ...and at once; beyond: rate/limited (the connection stays open)
    create_rate_address: float = 1.0  # the same for every connection from one client address together
    create_burst_address: float = 30.0
    max_connections_address: int = 64  # sockets one client address may hold open at once (0: no cap)
    send_queue: int = 512  # frames waiting for a slow client before it is dropped (it resumes later)
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    close_timeout: float = 5.0  # how long a closing handshake may take before the socket is dropped
    hello_timeout: float = 15.0  # a connection that says no hello in time is closed
    token_ttl: int = 365 * 24 * 3600  # seconds a seat or spectator token is valid (unless re-issued earlier)
    owner_ttl: int = 365 * 24 * 3600  # seconds an owner token is valid
    ack_wait: float = 5.0  # how long an ack waits for the command's patch to go out first
    drain_timeout: float = 10.0  # how long shutdown waits for in-flight appends
    resume_ring: int = 256  # recent versions kept in memory per followed contest for cheap resumes
    refold_limit: int = 5000  # a resume up to this many versions back gets a patch (refolded from a checkpoint)
    catch_up_notices: int = 128  # a resume missing more events gets one summary notice, not one per event
    feed_linger: float = 60.0  # seconds a contest stays followed after its last local viewer leaves
    health_timeout: float = 2.0
    relay: bool = True  # AGON_RELAY=0: every process folds each contest it has viewers of (no host, no relays)
    link_host: str = "127.0.0.1"  # AGON_LINK_ADDRESS=HOST:PORT: where the other processes' messages arrive
    link_port: int = 0  # (0: any free port; every process of the deployment must reach it, nobody else)
    link_advertise: str = ""  # AGON_LINK_ADVERTISE: the host the others reach this one at, if not link_host

    @classmethod
    def from_env(
        cls,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        store: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        env = dict(os.environ if env is None else env)
        secret = env.get("AGON_SECRET") or None
        origins = env.get("AGON_ORIGINS")
        hosts = env.get("AGON_HOSTS")
        return cls(
            host=host,
            port=port,
            data_dir=data_dir_for(store, env),
            secret=secret.encode() if secret else None,
            previous_secret=(env.get("AGON_SECRET_PREVIOUS") or "").encode() or None,
            previous_until=_number(env, "AGON_SECRET_PREVIOUS_UNTIL", int, None),
            jwt_public_key=_public_key(env),
            create_key=env.get("AGON_CREATE_KEY") or None,
            origins=tuple(o.strip() for o in origins.split(",") if o.strip()) if origins else None,
            hosts=tuple(h.strip().lower() for h in hosts.split(",") if h.strip()) if hosts else None,
            trusted_proxies=trusted_networks(env.get("AGON_TRUSTED_PROXIES")),
            rate=_positive(env, "AGON_RATE", cls.rate),
            burst=_positive(env, "AGON_BURST", cls.burst, least=1.0),
            send_queue=_whole(env, "AGON_SEND_QUEUE", cls.send_queue, least=1),
            max_connections_address=_whole(env, "AGON_MAX_CONNECTIONS_PER_ADDRESS", cls.max_connections_address),
            create_rate_address=_positive(env, "AGON_CREATE_RATE", cls.create_rate_address),
            create_burst_address=_positive(env, "AGON_CREATE_BURST", cls.create_burst_address, least=1.0),
            create_rate=_positive(env, "AGON_CREATE_RATE_CONNECTION", cls.create_rate),
            create_burst=_positive(env, "AGON_CREATE_BURST_CONNECTION", cls.create_burst, least=1.0),
            relay=env.get("AGON_RELAY", "1").strip().lower() not in ("0", "no", "off", "false"),
            **_link(env),
        )


def _link(env: Mapping[str, str]) -> dict[str, Any]:
    """AGON_LINK_ADDRESS (``HOST:PORT``, ``[IPv6]:PORT``) and AGON_LINK_ADVERTISE."""
    given = env.get("AGON_LINK_ADDRESS", "").strip()
    found: dict[str, Any] = {"link_advertise": env.get("AGON_LINK_ADVERTISE", "").strip()}
    if given:
        host, colon, port = given.rpartition(":")
        if not colon or not port.isdigit() or not 0 <= int(port) < 65536:
            raise SettingError(f"AGON_LINK_ADDRESS={given!r} is not HOST:PORT")
        found.update(link_host=host.strip("[]") or "0.0.0.0", link_port=int(port))
    return found


class SettingError(ValueError):
    """An environment setting the server cannot read (its message names the variable)."""


N = TypeVar("N", int, float)
D = TypeVar("D")


def _number(env: Mapping[str, str], name: str, kind: type[N], default: D) -> N | D:
    """The setting ``name`` as a number of ``kind``, or ``default`` when it is unset or empty."""
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise SettingError(f"{name}={text!r} is not {what}") from None


def _positive(env: Mapping[str, str], name: str, default: float, least: float = 0.0) -> float:
    """The setting ``name`` as a finite number above 0 (or at least ``least``, when it is above 0)."""
    value = _number(env, name, float, default)
    if not math.isfinite(value) or value <= 0 or value < least:
        bound = f"a number of at least {least:g}" if least > 0 else "a positive number"
        raise SettingError(f"{name}={env[name].strip()!r} is not {bound}")
    return value


def _whole(env: Mapping[str, str], name: str, default: int, least: int = 0) -> int:
    """The setting ``name`` as a whole number of at least ``least``."""
    value = _number(env, name, int, default)
    if value < least:
        raise SettingError(f"{name}={env[name].strip()!r} is not a whole number of at least {least}")
    return value


def _public_key(env: Mapping[str, str]) -> bytes | None:
    if env.get("AGON_JWT_PUBLIC_KEY"):
        return env["AGON_JWT_PUBLIC_KEY"].encode()
    if env.get("AGON_JWT_PUBLIC_KEY_FILE"):
        return Path(env["AGON_JWT_PUBLIC_KEY_FILE"]).read_bytes()
    return None


def data_dir_for(store: str | None, env: Mapping[str, str]) -> Path:
    """AGON_DATA if set; else the directory of the sqlite file; else the default data folder."""
    if env.get("AGON_DATA"):
        return Path(env["AGON_DATA"])
    if store is not None and store.startswith("sqlite:") and store.removeprefix("sqlite:"):
        return Path(store.removeprefix("sqlite:")).parent
    return datadir.data_dir(env)
