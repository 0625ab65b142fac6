"""The load: rooms of seven connections (a GM, four players, two spectators), each GM sending commands.

The same driver runs against Agon and against the floor; only the frames differ (a ``Target``). A
command's latency runs from its sending to the moment the last of its room's seven connections has
received the patch it caused (the n-th patch a connection receives answers the room's n-th command).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from websockets.asyncio.client import ClientConnection, connect

ROOM = ("gm", "p1", "p2", "p3", "p4", "spectator", "spectator")
"""Who sits in a room: the GM, four players, two spectators."""


class _Head(msgspec.Struct):
    """Enough of any frame to route it: its type, and the id of an ack or error."""

    type: str
    id: str | None = None
    code: str | None = None
    message: str | None = None


_head = msgspec.json.Decoder(_Head)


@dataclass
class Target:
    """How to talk to one kind of server: the hello of a room's member and a GM's command."""

    urls: Sequence[str]  # one per server process; room i goes to urls[i % len(urls)] (pinned)
    hello: Callable[[int, int], bytes]  # (room, member) -> the first frame
    command: Callable[[int, int], bytes]  # (room, n) -> the n-th command frame (its id is command_id(tag, n))
    pids: Sequence[int]  # the server processes whose CPU is measured
    tag: str = ""  # distinguishes this target's command ids from an earlier run's on the same contests
    spread: bool = False  # member j of room i goes to urls[(i + j) % len(urls)], as a round-robin proxy spreads them
    places: Sequence[int] = ()  # if given, member j of every room goes to urls[places[j]]

    def url(self, room: int, member: int) -> str:
        if self.places:
            return self.urls[self.places[member]]
        return self.urls[(room + member if self.spread else room) % len(self.urls)]


def command_id(tag: str, n: int) -> str:
    return f"{tag}c{n}"


@dataclass
class _Member:
    ws: ClientConnection
    patches: int = 0
    first_patch: bytes | None = None


@dataclass
class Room:
    index: int
    members: list[_Member] = field(default_factory=list)
    sent: dict[int, float] = field(default_factory=dict)  # n -> when the n-th command was sent
    acks: dict[str, asyncio.Future[None]] = field(default_factory=dict)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent at, seconds to the last patch)
    commands: int = 0
    failures: int = 0

    def patched(self) -> None:
        reached = min(m.patches for m in self.members)
        while self.sent and min(self.sent) <= reached:
            n = min(self.sent)
            at = self.sent.pop(n)
            self.latencies.append((at, time.perf_counter() - at))


async def _reader(room: Room, member: _Member, welcomed: asyncio.Future[None]) -> None:
    with contextlib.suppress(Exception):
        async for frame in member.ws:
            data = frame if isinstance(frame, bytes) else frame.encode()
            head = _head.decode(data)
            match head.type:
                case "patch":
                    member.patches += 1
                    if member.first_patch is None:
                        member.first_patch = data
                    room.patched()
                case "welcome":
                    if not welcomed.done():
                        welcomed.set_result(None)
                case "ack" | "error":
                    if head.type == "error":
                        room.failures += 1
                        if not welcomed.done():
                            welcomed.set_exception(RuntimeError(f"{head.code}: {head.message}"))
                    waiter = room.acks.pop(head.id or "", None)
                    if waiter is not None and not waiter.done():
                        waiter.set_result(None)
                case _:
                    pass


async def open_rooms(target: Target, rooms: int) -> tuple[list[Room], list[asyncio.Task[None]]]:
    """Connect every member of every room and wait for their welcomes."""
    out: list[Room] = []
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()

    async def join(room: Room, member_index: int) -> None:
        url = target.url(room.index, member_index)
        ws = await connect(url, compression=None, max_size=2**24, ping_interval=None, open_timeout=60)
        member = _Member(ws)
        room.members.append(member)
        welcomed: asyncio.Future[None] = loop.create_future()
        tasks.append(loop.create_task(_reader(room, member, welcomed)))
        await ws.send(target.hello(room.index, member_index).decode(), text=True)
        async with asyncio.timeout(60):
            await welcomed

    for index in range(rooms):
        room = Room(index)
        out.append(room)
        await join(room, 0)  # the GM first: its index 0 is the one that sends commands
        await asyncio.gather(*(join(room, m) for m in range(1, len(ROOM))))
    return out, tasks


class Connected(Protocol):
    @property
    def ws(self) -> ClientConnection: ...


class Seated(Protocol):
    """A room or a table as closing it needs: its members' connections."""

    @property
    def members(self) -> Sequence[Connected]: ...


async def close_rooms(rooms: Sequence[Seated], tasks: Sequence[asyncio.Task[None]]) -> None:
    """Close every member's connection of ``rooms`` (rooms of this module, or the mix's tables) and their readers."""
    await asyncio.gather(*(m.ws.close() for r in rooms for m in r.members), return_exceptions=True)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def send_command(target: Target, room: Room) -> asyncio.Future[None]:
    n = room.commands + 1
    room.commands = n
    ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    room.acks[command_id(target.tag, n)] = ack
    room.sent[n] = time.perf_counter()
    await room.members[0].ws.send(target.command(room.index, n).decode(), text=True)
    return ack


async def closed_loop(target: Target, rooms: Sequence[Room], seconds: float) -> None:
    """Every GM sends its next command as soon as the previous one is acknowledged."""
    deadline = time.perf_counter() + seconds

    async def gm(room: Room) -> None:
        while time.perf_counter() < deadline:
            ack = await send_command(target, room)
            async with asyncio.timeout(30):
                await ack

    await asyncio.gather(*(gm(r) for r in rooms))


IN_FLIGHT = 16
"""A paced room skips its turn while this many of its commands are unacknowledged (an overloaded server
shows as fewer commands/s than asked, not as an ever-growing queue)."""


async def paced(target: Target, rooms: Sequence[Room], seconds: float, rate: float) -> None:
    """Commands at ``rate`` per second in all, spread evenly over the rooms, without waiting for acks."""
    interval = len(rooms) / rate
    start = time.perf_counter()
    deadline = start + seconds

    async def gm(room: Room) -> None:
        at = start + interval * room.index / len(rooms)
        pending: list[asyncio.Future[None]] = []
        while at < deadline:
            delay = at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            if len(room.acks) < IN_FLIGHT:
                pending.append(await send_command(target, room))
            at += interval
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(30):
                await asyncio.gather(*pending)

    await asyncio.gather(*(gm(r) for r in rooms))


async def load(target: Target, rooms: Sequence[Room], seconds: float, rate: float | None) -> tuple[float, float]:
    """The GMs' commands for ``seconds`` (closed loop when ``rate`` is None, else paced at it), until each reached its
    whole room: when it started (``time.perf_counter``) and how many seconds it took."""
    started = time.perf_counter()
    if rate is None:
        await closed_loop(target, rooms, seconds)
    else:
        await paced(target, rooms, seconds, rate)
    await settle(rooms)
    return started, time.perf_counter() - started


async def settle(rooms: Sequence[Room], timeout: float = 30.0) -> None:
    """Wait until every command sent has reached its whole room."""
    deadline = time.perf_counter() + timeout
    while any(r.sent for r in rooms):
        if time.perf_counter() > deadline:
            missing = sum(len(r.sent) for r in rooms)
            raise RuntimeError(f"{missing} commands did not reach every connection of their room in {timeout:g}s")
        await asyncio.sleep(0.005)


def reset(rooms: Sequence[Room]) -> None:
    for room in rooms:
        room.latencies.clear()


def latencies(rooms: Sequence[Room], after: float) -> list[float]:
    return [seconds for r in rooms for at, seconds in r.latencies if at >= after]


def samples(rooms: Sequence[Room]) -> list[str]:
    """A spectator's first patch (with its notice): the frame the floor sends for one command."""
    spectator = rooms[0].members[-1]
    return [] if spectator.first_patch is None else [spectator.first_patch.decode()]


def as_frame(message: Any) -> bytes:
    return msgspec.json.encode(message)
