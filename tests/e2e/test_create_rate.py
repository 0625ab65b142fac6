"""Contest creation rate as a setting: `agon serve` started with AGON_CREATE_RATE / AGON_CREATE_BURST (per client
address) and AGON_CREATE_RATE_CONNECTION / AGON_CREATE_BURST_CONNECTION (per connection) lets a script open that
many contests at once where the defaults refuse, and refuses the next with rate/limited; a value that is not a
positive number (a burst below 1) stops the start with one line naming the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from clients.python import AgonClient
from clients.python.errors import Refusal
from tests.e2e.conftest import ServerFactory
from tests.net.duel import duel
from tests.test_cli import agon, one_line_failure

SLOW = "0.001"  # no token comes back while the test runs


async def created_until_refused(client: AgonClient, most: int) -> int:
    """How many contests ``client`` creates before the first ``rate/limited`` (at most ``most``)."""
    for count in range(most):
        try:
            await client.create(duel())
        except Refusal as refused:
            assert refused.code == "rate/limited", refused
            return count
    return most


async def test_the_create_settings_let_a_script_open_a_nights_tables(agon_server: ServerFactory) -> None:
    default = agon_server()
    script = await AgonClient.connect(default.ws_url)
    assert await created_until_refused(script, 40) == 10  # the default: 10 at once on one connection
    await script.close()

    server = agon_server(
        env={
            "AGON_CREATE_RATE": SLOW,
            "AGON_CREATE_BURST": "40",
            "AGON_CREATE_RATE_CONNECTION": SLOW,
            "AGON_CREATE_BURST_CONNECTION": "25",
        }
    )
    first, second = [await AgonClient.connect(server.ws_url) for _ in range(2)]
    assert await created_until_refused(first, 40) == 25  # the connection's burst
    await first.ping()  # refused, not dropped
    assert await created_until_refused(second, 40) == 15  # the address's burst: 40 in all
    for client in (first, second):
        await client.close()


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("AGON_CREATE_RATE", "0", "is not a positive number"),
        ("AGON_CREATE_RATE", "fast", "is not a number"),
        ("AGON_CREATE_BURST", "0.5", "is not a number of at least 1"),
        ("AGON_CREATE_RATE_CONNECTION", "-1", "is not a positive number"),
        ("AGON_CREATE_BURST_CONNECTION", "inf", "is not a number of at least 1"),
    ],
)
def test_a_bad_create_setting_stops_the_start_with_one_line(tmp_path: Path, name: str, value: str, said: str) -> None:
    started = agon("serve", "--create", "--port", "0", cwd=tmp_path, data=tmp_path / "data", **{name: value})
    one_line_failure(started, f"{name}={value!r}", said)
    assert not (tmp_path / "data" / "agon.sqlite3").exists()


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("AGON_RATE", "0", "is not a positive number"),  # would refuse every frame after the first burst
        ("AGON_BURST", "0", "is not a number of at least 1"),  # would refuse every frame
        ("AGON_SEND_QUEUE", "0", "is not a whole number of at least 1"),  # would drop every client at once
        ("AGON_MAX_CONNECTIONS_PER_ADDRESS", "-1", "is not a whole number of at least 0"),  # 0: no cap
    ],
)
def test_a_frame_limit_that_would_refuse_everyone_stops_the_start_with_one_line(
    tmp_path: Path, name: str, value: str, said: str
) -> None:
    started = agon("serve", "--create", "--port", "0", cwd=tmp_path, data=tmp_path / "data", **{name: value})
    one_line_failure(started, f"{name}={value!r}", said)
