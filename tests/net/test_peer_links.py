"""The links between server processes (real sockets on loopback): messages arrive whole and in order, only from a
process that shares the server secret; a process that is gone is reported unreachable, and a broken connection is
told to the listener (its messages may be lost)."""

from __future__ import annotations

import asyncio
import os
import struct

from server.peer_links import CHALLENGE, PeerLinks

SECRET = b"a secret every process of the deployment shares"


async def listening(links: PeerLinks) -> tuple[str, list[bytes], list[str]]:
    got: list[bytes] = []
    reset: list[str] = []
    host, port = await links.listen(got.append, reset.append)
    return f"{host}:{port}", got, reset


async def until(check: object, seconds: float = 2.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not check():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)


async def test_messages_arrive_whole_and_in_order() -> None:
    host, sender = PeerLinks(SECRET, "host", "127.0.0.1", 0), PeerLinks(SECRET, "relay", "127.0.0.1", 0)
    address, got, _ = await listening(host)
    messages = [os.urandom(n) for n in (0, 1, 100, 70_000, 5)] + [b"x" * 3_000_000]
    for message in messages:
        assert await sender.send("host", address, message) == 1
    await until(lambda: len(got) == len(messages))
    assert got == messages
    await sender.close()
    await host.close()


async def test_a_sender_without_the_secret_is_cut_off_and_nothing_it_sends_arrives() -> None:
    host = PeerLinks(SECRET, "host", "127.0.0.1", 0)
    address, got, reset = await listening(host)
    intruder = PeerLinks(b"not the secret", "intruder", "127.0.0.1", 0)
    await intruder.send("host", address, b'{"frames": "forged"}')
    # And one who skips the handshake altogether: its bytes are read as a proof, which fails.
    hostname, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(hostname, int(port))
    await reader.readexactly(CHALLENGE)
    writer.write(bytes([5]) + b"relay" + b"\0" * 32 + struct.pack(">I", 3) + b"abc")
    await writer.drain()
    assert await reader.read() == b""  # closed by the listener
    await asyncio.sleep(0.1)
    assert got == [] and reset == []
    writer.close()
    await intruder.close()
    await host.close()


async def test_a_process_that_is_gone_is_unreachable_and_its_listener_told_of_the_break() -> None:
    host, relay = PeerLinks(SECRET, "host", "127.0.0.1", 0), PeerLinks(SECRET, "relay", "127.0.0.1", 0)
    address, got, reset = await listening(host)
    relay_address, _, _ = await listening(relay)
    assert await relay.send("host", address, b"attach") == 1
    await until(lambda: got == [b"attach"])
    await relay.close()  # the relay goes: the host is told its messages may have been lost
    await until(lambda: reset == ["relay"])
    assert await host.send("relay", relay_address, b"frames") == 0
    await host.close()


async def test_a_process_listening_where_another_did_refuses_what_was_meant_for_the_other() -> None:
    restarted = PeerLinks(SECRET, "host, started again", "127.0.0.1", 0)
    address, got, _ = await listening(restarted)
    sender = PeerLinks(SECRET, "relay", "127.0.0.1", 0)
    await sender.send("host", address, b"frames for the process that listened here before")
    await asyncio.sleep(0.1)
    assert got == []
    assert await sender.send("host, started again", address, b"attach") == 1
    await until(lambda: got == [b"attach"])
    await sender.close()
    await restarted.close()


OLD = b"the secret every process had until the change"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_while_the_secret_changes_processes_with_the_new_one_and_with_the_old_one_reach_each_other() -> None:
    clock = Clock()
    grace = clock.now + 3600
    changed = PeerLinks(SECRET, "changed", "127.0.0.1", 0, previous=[(OLD, grace)], clock=clock)
    unchanged = PeerLinks(OLD, "unchanged", "127.0.0.1", 0)
    only_new = PeerLinks(SECRET, "only the new one", "127.0.0.1", 0)
    changed_at, to_changed, _ = await listening(changed)
    unchanged_at, to_unchanged, _ = await listening(unchanged)
    only_new_at, to_only_new, _ = await listening(only_new)
    assert await changed.send("unchanged", unchanged_at, b"frames") == 1
    assert await unchanged.send("changed", changed_at, b"attach") == 1
    assert await changed.send("only the new one", only_new_at, b"run") == 1
    assert await only_new.send("changed", changed_at, b"done") == 1
    await until(
        lambda: (to_unchanged, sorted(to_changed), to_only_new) == ([b"frames"], [b"attach", b"done"], [b"run"])
    )
    # Once the grace period is over the old secret proves nothing: a process still holding only it is cut off.
    clock.now = grace
    stale = PeerLinks(OLD, "stale", "127.0.0.1", 0)
    await stale.send("changed", changed_at, b"forged after the grace period")
    await asyncio.sleep(0.1)
    assert b"forged after the grace period" not in to_changed
    for links in (changed, unchanged, only_new, stale):
        await links.close()


async def test_an_answer_with_more_proofs_than_a_process_gives_is_cut_off() -> None:
    host = PeerLinks(SECRET, "host", "127.0.0.1", 0)
    address, got, _ = await listening(host)
    hostname, port = address.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(hostname, int(port))
    await reader.readexactly(CHALLENGE)
    guesses = 200  # a sender trying many secrets at once
    writer.write(bytes([0x80 | 5, guesses]) + b"relay" + os.urandom(32) * guesses + struct.pack(">I", 3) + b"abc")
    await writer.drain()
    assert await reader.read() == b""  # closed by the listener
    assert got == []
    writer.close()
    await host.close()
