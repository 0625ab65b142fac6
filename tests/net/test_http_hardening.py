"""The HTTP side answers hostile requests plainly: every answer carries the security headers, a request it
cannot read is a 400 with a one-line reason (never a 500 or a traceback), only a plain ``Host`` is taken,
and a method it does not serve is a 405 naming the ones it does. Raw requests over loopback sockets."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from websockets.asyncio.client import connect

from protocol.codec import encode
from protocol.messages import Create
from server.net.forwarded import trusted_networks
from server.net.http import host_allowed
from server.net.settings import Settings
from server.net.static import SECURITY_HEADERS
from tests.net.conftest import Start
from tests.net.duel import duel

KEY = "dGhlIHNhbXBsZSBub25jZQ=="


async def exchange(port: int, request: str) -> tuple[int, dict[str, list[str]], bytes]:
    """Send raw bytes, read the answer until the server closes: status, headers (lower-cased names), body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request.encode("latin-1"))
    await writer.drain()
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers: dict[str, list[str]] = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.setdefault(name.strip().lower(), []).append(value.strip())
        length = int(headers.get("content-length", ["0"])[0])
        body = await asyncio.wait_for(reader.readexactly(length), timeout=5) if status != 101 else b""
        return status, headers, body
    finally:
        writer.close()


def handshake(port: int, *extra: str, method: str = "GET", path: str = "/ws", host: str | None = None) -> str:
    lines = [
        f"{method} {path} HTTP/1.1",
        f"Host: {host if host is not None else f'127.0.0.1:{port}'}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {KEY}",
        "Sec-WebSocket-Version: 13",
        *extra,
    ]
    return "\r\n".join(lines) + "\r\n\r\n"


def plain(port: int, *extra: str, method: str = "GET", path: str = "/", host: str | None = None) -> str:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host if host is not None else f'127.0.0.1:{port}'}", *extra]
    return "\r\n".join(lines) + "\r\n\r\n"


def assert_secured(headers: dict[str, list[str]]) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name.lower()) == [value], name


def assert_quiet(caplog: pytest.LogCaptureFixture) -> None:
    """Nothing at ERROR, and no traceback, in the log."""
    for record in caplog.records:
        assert record.levelno < logging.ERROR, record.getMessage()
        assert record.exc_info is None, record.getMessage()


def test_only_a_plain_host_with_an_optional_numeric_port_names_the_server() -> None:
    loopback = Settings(host="127.0.0.1", port=8765)
    for host in ("127.0.0.1:8765", "localhost", "LOCALHOST:8765", "[::1]:8765", "[::1]"):
        assert host_allowed(host, loopback), host
    for host in (
        "evil@127.0.0.1:8765",
        "127.0.0.1:8765/x",
        "127.0.0.1:8765?x",
        "127.0.0.1:8765#x",
        "127.0.0.1:",
        "127.0.0.1:port",
        "127.0.0.1:99999",
        "127.0.0.1:+80",
        "127.0.0.1 :8765",
        "[::1",
        "[127.0.0.1]",
        "[::1]x",
        "::1",
        "127.0.0.1:8765:8765",
        "local host",
        "",
    ):
        assert not host_allowed(host, loopback), host
    anywhere = Settings(host="0.0.0.0", port=8765)
    assert host_allowed("table.example:8765", anywhere) and host_allowed("10.0.0.7", anywhere)
    assert not host_allowed("user@table.example", anywhere) and not host_allowed("table.example/ws", anywhere)
    listed = Settings(host="0.0.0.0", port=8765, hosts=("*",))
    assert host_allowed("table.example", listed) and not host_allowed("evil@table.example", listed)


@pytest.mark.parametrize(
    "host", ["evil@127.0.0.1:{port}", "127.0.0.1:{port}/x", "127.0.0.1:{port}@evil.example", "127.0.0.1:x"]
)
async def test_a_handshake_with_a_host_that_is_not_plain_is_refused(
    start: Start, host: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = await start()
    port = server.port
    assert (await exchange(port, handshake(port)))[0] == 101  # the same request with a plain Host opens
    status, headers, body = await exchange(port, handshake(port, host=host.format(port=port)))
    assert status == 400 and b"Host" in body
    assert_secured(headers)
    assert_quiet(caplog)


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("Host: 127.0.0.1:{port}", "/ws"),
        ("Origin: http://127.0.0.1:{port}", "/ws"),
        ("Authorization: Bearer x", "/ws"),
        ("Host: 127.0.0.1:{port}", "/"),
        ("Authorization: Bearer x", "/api/contests"),
        ("Origin: http://127.0.0.1:{port}", "/healthz"),
    ],
)
async def test_a_duplicated_header_is_a_400_with_a_reason_not_a_500_and_a_traceback(
    start: Start, header: str, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = await start()
    port = server.port
    line = header.format(port=port)
    twice = [line, line] if not line.startswith("Host") else [line]  # handshake() writes one Host already
    status, headers, body = await exchange(port, handshake(port, *twice, path=path))
    name = line.partition(":")[0]
    assert status == 400, body
    assert body.decode().strip() == f"bad request: more than one {name} header"
    assert_secured(headers)
    assert_quiet(caplog)


async def test_every_answer_carries_the_security_headers(start: Start, caplog: pytest.LogCaptureFixture) -> None:
    server = await start()
    port = server.port
    answers = {
        "no upgrade on /ws": (plain(port, path="/ws"), 426),
        "a bad key": (handshake(port).replace(KEY, "short"), 400),
        "another version": (handshake(port).replace("Version: 13", "Version: 8"), 400),
        "another origin": (handshake(port, f"Origin: http://127.0.0.1:{port + 1}"), 403),
        "another host": (handshake(port, host=f"evil.example:{port}"), 403),
        "no such page": (plain(port, path="/nowhere"), 404),
        "a POST": (plain(port, method="POST", path="/"), 405),
        "a page": (plain(port, path="/"), 200),
        "health": (plain(port, path="/healthz"), 200),
        "a request target that does not parse": (plain(port, path="//[x/y"), 400),
    }
    for what, (request, expected) in answers.items():
        status, headers, _ = await exchange(port, request)
        assert status == expected, what
        assert_secured(headers)
    assert_quiet(caplog)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW"])
async def test_a_method_other_than_get_or_head_is_a_405_naming_the_methods_served(
    start: Start, method: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = await start()
    port = server.port
    for path in ("/", "/healthz", "/metrics", "/api/contests", "/schema.json", "/nowhere"):
        status, headers, body = await exchange(port, plain(port, "Content-Length: 0", method=method, path=path))
        assert status == 405, (path, body)
        assert headers["allow"] == ["GET, HEAD"]
        assert_secured(headers)
    status, headers, _ = await exchange(port, handshake(port, method=method))
    assert status == 405 and headers["allow"] == ["GET"]
    assert_secured(headers)
    assert_quiet(caplog)


async def test_head_answers_like_get_without_the_body(start: Start) -> None:
    server = await start()
    port = server.port
    for path in ("/", "/healthz", "/schema.json", "/nowhere"):
        got = await exchange(port, plain(port, path=path))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(plain(port, method="HEAD", path=path).encode())
        answer = await asyncio.wait_for(reader.read(), timeout=5)  # everything, until the server closes
        writer.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert int(head.split()[1]) == got[0] and body == b"", path
        assert f"Content-Length: {len(got[2])}".encode() in head or path == "/healthz"
        assert_secured({k.lower(): [v] for k, v in (line.split(": ", 1) for line in head.decode().split("\r\n")[1:])})


@pytest.mark.parametrize("behind_a_proxy", [False, True])
async def test_x_forwarded_for_on_several_lines_is_read_as_one_list(
    start: Start, behind_a_proxy: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """RFC 9110 §5.3: several lines of a list header are one list. A proxy may add its own line after the
    client's; the server reads them joined in order, never as a header it cannot read (a traceback)."""
    proxies = trusted_networks("127.0.0.1" if behind_a_proxy else None)
    server = await start(trusted_proxies=proxies)
    lines = [("X-Forwarded-For", "198.51.100.7"), ("X-Forwarded-For", "203.0.113.9")]
    async with connect(server.ws_url, additional_headers=lines) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        await ws.send(encode(Create(id="c1", contest=duel())))
        assert json.loads(await ws.recv())["type"] == "created"
    assert_quiet(caplog)


async def test_a_500_from_a_fault_of_the_server_carries_the_security_headers_too(
    start: Start, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = await start()

    def broken() -> str:
        raise RuntimeError("a fault of the server's own")

    monkeypatch.setattr(server.context.metrics, "render", broken)
    status, headers, _ = await exchange(server.port, plain(server.port, path="/metrics"))
    assert status == 500
    assert_secured(headers)
