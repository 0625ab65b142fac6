"""`agon serve` as an operator sees it: the URL it prints, its secret, its HTTP endpoints, origins, and a
graceful shutdown that clients resume from on the next process."""

from __future__ import annotations

import asyncio
import json
import stat
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.python.client import AgonClient
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory, http_get
from tests.e2e.test_slow_consumer import metric
from tests.net.duel import duel


async def test_serve_prints_its_url_keeps_a_private_secret_and_answers_http(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    server = agon_server(secret=None)
    assert f"http://127.0.0.1:{server.port}/" in server.output()
    secret = tmp_path / "data" / "secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600

    status, body = http_get(f"{server.http_url}/healthz")
    assert status == 200 and json.loads(body)["store"] == "ok"
    status, body = http_get(f"{server.http_url}/")
    assert status == 200 and '<script type="module" src="/app.js">' in body
    status, body = http_get(f"{server.http_url}/developers.html")
    assert status == 200 and "/ws" in body and "AgonClient.connect" in body
    status, body = http_get(f"{server.http_url}/schema.json")
    assert status == 200 and '"hello"' in body and '"extended.roll"' in body
    assert http_get(f"{server.http_url}/nowhere")[0] == 404

    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    assert gm.owner is not None
    status, body = http_get(f"{server.http_url}/api/contests", {"Authorization": f"Bearer {gm.owner}"})
    assert status == 200 and [c["contest"] for c in json.loads(body)["contests"]] == [created.contest]
    assert http_get(f"{server.http_url}/api/contests")[0] == 401
    seat = {"Authorization": f"Bearer {created.invitations.gm}"}
    assert http_get(f"{server.http_url}/api/contests", seat)[0] == 403

    status, metrics = http_get(f"{server.http_url}/metrics")
    assert status == 200
    for family in ("agon_connections", "agon_commands_total", "agon_append_seconds", "agon_fanout_seconds"):
        assert f"# TYPE {family} " in metrics
    assert "agon_connections 1" in metrics
    await gm.close()


async def test_origins_other_than_the_servers_own_are_refused(agon_server: ServerFactory) -> None:
    server = agon_server()
    with pytest.raises(InvalidStatus) as refused:
        async with connect(server.ws_url, origin="http://evil.example"):  # type: ignore[arg-type]
            pass
    assert refused.value.response.status_code == 403
    async with connect(server.ws_url, origin=f"http://127.0.0.1:{server.port}"):  # type: ignore[arg-type]
        pass
    async with connect(server.ws_url):
        pass
    allowing = agon_server(env={"AGON_ORIGINS": "https://table.example"})
    async with connect(allowing.ws_url, origin="https://table.example"):  # type: ignore[arg-type]
        pass
    with pytest.raises(InvalidStatus):
        async with connect(allowing.ws_url, origin=f"http://127.0.0.1:{allowing.port}"):  # type: ignore[arg-type]
            pass


async def test_creation_needs_the_create_key_when_one_is_set(agon_server: ServerFactory) -> None:
    server = agon_server(env={"AGON_CREATE_KEY": "let-me-in"})
    client = await AgonClient.connect(server.ws_url)
    from clients.python.client import Refusal

    with pytest.raises(Refusal) as refused:
        await client.create(duel())
    assert refused.value.code == "auth/forbidden"
    with pytest.raises(Refusal):
        await client.create(duel(), create_key="wrong")
    created = await client.create(duel(), create_key="let-me-in")
    assert created.invitations.spectator
    await client.close()


async def test_sigterm_closes_sockets_with_1001_and_clients_resume_on_the_next_process(
    agon_server: ServerFactory,
) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    ack = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    await gm.wait_version(contest, ack.version)

    assert await asyncio.to_thread(server.terminate) == 0
    assert await ann.wait_closed() == 1001
    assert await gm.wait_closed() == 1001
    assert "shutting down" in server.output()

    # A new process on the same store and secret: the same tokens work, and clients resume.
    again = agon_server()
    ann.url = gm.url = again.ws_url
    await ann.reconnect()
    await gm.reconnect()
    assert ann.mirrors[contest].welcomes[-1].view is None  # resumed from its own view, not a fresh one
    bob = await AgonClient.connect(again.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    revealed = await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="parry", bid=2)))
    for client in (ann, gm):
        mirror = await client.wait_version(contest, revealed.version)
        assert mirror.rules["intents"]["aria"]["action"] == "lunge"
        assert mirror.desyncs == 0
    for client in (ann, gm, bob):
        await client.close()


def test_the_browser_client_is_served_with_strict_headers(agon_server: ServerFactory) -> None:
    server = agon_server()

    def get(path: str) -> tuple[int, dict[str, str], bytes]:
        try:
            with urllib.request.urlopen(f"{server.http_url}{path}", timeout=5) as response:
                return int(response.status), dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return int(error.code), dict(error.headers), error.read()

    for path, mime in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/rules/extended.js", "text/javascript"),
        ("/vendor/core.mjs", "text/javascript"),
        ("/style.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
        ("/healthz", "application/json"),
    ]:
        status, headers, _ = get(path)
        assert status == 200, path
        assert headers["Content-Type"].startswith(mime), (path, headers["Content-Type"])
        csp = headers["Content-Security-Policy"]
        for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"):
            assert directive in csp, (path, csp)
        for directive in ("frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"):
            assert directive in csp, (path, csp)
        assert "unsafe" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
    # only the client's own files are served: no path reaches anything else
    for path in (
        "/../pyproject.toml",
        "/vendor/refresh",
        "/vendor/README.md",
        "/%2e%2e/server/cli.py",
        "/server/cli.py",
    ):
        assert get(path)[0] == 404, path
    # the page loads nothing from elsewhere and runs no inline script
    _, _, page = get("/")
    assert b"http://" not in page and b"https://" not in page
    assert b"<script>" not in page and b"style=" not in page


async def test_serve_runs_on_uvloop_when_asked_and_refuses_an_unknown_loop(agon_server: ServerFactory) -> None:
    server = agon_server(env={"AGON_LOOP": "uvloop"})
    assert "agon: event loop uvloop" in server.output()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(created.contest, created.invitations.seats["ann"])])
    ack = await ann.command(created.contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
    assert (await ann.wait_version(created.contest, ack.version)).desyncs == 0
    await gm.close()
    await ann.close()
    assert server.terminate() == 0
    assert "agon: event loop asyncio" in agon_server().output()
    with pytest.raises(pytest.fail.Exception) as failed:
        agon_server(env={"AGON_LOOP": "trio"})
    assert "AGON_LOOP" in str(failed.value)


async def test_processes_on_uvloop_relay_a_contest_between_them(agon_server: ServerFactory, redis_url: str) -> None:
    """uvloop's transports are its own: the links between processes (a host and its relays) work on them too."""
    host, relay = (agon_server(store=redis_url, env={"AGON_LOOP": "uvloop"}) for _ in range(2))
    gm = await AgonClient.connect(host.ws_url)
    created = await gm.create(duel(contest=f"uvloop-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)  # the first viewer: its process hosts the contest
    ann = await AgonClient.connect(relay.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    try:
        ack = await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=3)))
        for client in (gm, ann):
            assert (await client.wait_version(contest, ack.version)).in_sync
        assert metric(host, "agon_contests_hosted") == 1
        assert metric(relay, "agon_contests_relayed") == 1
        assert "Traceback" not in relay.output() + host.output()
    finally:
        await gm.close()
        await ann.close()
