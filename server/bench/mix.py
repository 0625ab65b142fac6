"""The loop of the table-night mix: tables of seven connections playing full rounds, closed loop or paced.

A *table* is one contest and its seven connections (``drive.ROOM``: the GM, four players, two spectators).
What it sends next comes from its *source*: against Agon, the ruleset's round (``server.bench.rounds``)
reading the GM's view, kept current from the GM's patches; against the floor, the frames Agon sent in the
warm-up, replayed (``server.bench.recording``). Each command goes out on the connection of the seat whose
move it is, and a table has one command in flight: the next goes once the last is acknowledged and its
patch has reached the GM's page (a closed loop), or at the table's next slot of the pace, whichever is later.

A command's latency runs from its sending to the moment the last of the table's seven connections has its
patch: every command of the run reaches every connection as one patch (checked after the warm-up), so the
n-th patch a connection receives answers the table's n-th command.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from websockets.asyncio.client import ClientConnection, connect

from protocol.events import Rewind
from protocol.messages import Execute, Patch
from protocol.patch import apply
from server.bench.drive import ROOM
from server.bench.rounds import Json, Move, Round, awaits, decided

SEAT_MEMBER = {seat: i for i, seat in enumerate(ROOM) if seat != "spectator"}
"""The connection each seat sends from: its index in ``ROOM``."""


class Refusal(RuntimeError):
    """A command of the mix was refused: the round modules and the server disagree (a bench bug, or a change
    of the protocol), so the figures would not be those of full rounds."""


class _Head(msgspec.Struct):
    type: str
    id: str | None = None
    version: int | None = None
    code: str | None = None
    message: str | None = None


class _Welcome(msgspec.Struct):
    version: int
    view: dict[str, Any] | None = None


_head = msgspec.json.Decoder(_Head)
_welcome = msgspec.json.Decoder(_Welcome)
_patch = msgspec.json.Decoder(Patch)
_encode = msgspec.json.Encoder().encode


@dataclass
class Step:
    """A command to send: from which connection, its frame, and whether it rolls (an exchange)."""

    member: int
    frame: bytes
    rolls: bool


class Source(Protocol):
    """What a table sends next (the table's n-th command; ``id`` is the command id to put in it)."""

    def next(self, table: Table, n: int, id: str) -> Step: ...


@dataclass
class Member:
    ws: ClientConnection
    patches: int = 0
    recorded: list[str] | None = None  # the patch frames received while the table records (for the floor)


@dataclass
class Table:
    index: int
    load: str  # the ruleset it plays ("adjust": the GM's AP adjustments only)
    source: Source
    tag: str  # makes its command ids unique
    members: list[Member] = field(default_factory=list)
    view: Json | None = None  # the GM's view (Agon only: the source reads it)
    version: int = 0  # of ``view``
    acked: dict[str, int] = field(default_factory=dict)  # command id -> version stored, until done
    ids: dict[str, int] = field(default_factory=dict)  # command id -> n, while in flight
    sent: dict[int, float] = field(default_factory=dict)  # n -> when sent, until every connection has it
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (sent at, seconds to the last patch)
    commands: int = 0
    rolls: int = 0
    steps: list[tuple[int, int, bool]] | None = None  # (member, frame length, rolls) while recording
    waiter: tuple[int, str, asyncio.Future[int]] | None = None  # (n, id, done) of the command in flight

    def patched(self) -> None:
        reached = min(m.patches for m in self.members)
        while self.sent and min(self.sent) <= reached:
            n = min(self.sent)
            at = self.sent.pop(n)
            self.latencies.append((at, time.perf_counter() - at))
        self.check()

    def check(self) -> None:
        """Resolve the command in flight once it is acknowledged and the GM's page has its patch."""
        if self.waiter is None:
            return
        n, id, done = self.waiter
        if id in self.acked and self.members[0].patches >= n and not done.done():
            done.set_result(self.acked.pop(id))

    def fail(self, why: str) -> None:
        """The command in flight is refused, or the table cannot go on: its player stops with ``why``."""
        if self.waiter is not None and not self.waiter[2].done():
            self.waiter[2].set_exception(Refusal(f"table {self.index} ({self.load}): {why}"))


async def _reader(table: Table, member: Member, welcomed: asyncio.Future[None], gm: bool) -> None:
    try:
        async for frame in member.ws:
            head = _head.decode(frame)
            match head.type:
                case "patch":
                    if gm and table.view is not None:
                        patch = _patch.decode(frame)
                        if patch.from_ != table.version:
                            raise Refusal(f"a patch from version {patch.from_} to the GM's view at {table.version}")
                        table.view, table.version = apply(table.view, patch.ops), patch.to
                    if member.recorded is not None:
                        member.recorded.append(frame if isinstance(frame, str) else frame.decode())
                    member.patches += 1
                    table.patched()
                case "welcome":
                    if gm:
                        welcome = _welcome.decode(frame)
                        table.view, table.version = welcome.view, welcome.version
                    if not welcomed.done():
                        welcomed.set_result(None)
                case "ack":
                    if head.id in table.ids:
                        table.ids.pop(head.id)
                        table.acked[head.id] = head.version or 0
                        table.check()
                case "error":
                    if not welcomed.done():
                        welcomed.set_exception(RuntimeError(f"{head.code}: {head.message}"))
                    elif head.id in table.ids:
                        table.fail(f"{head.code}: {head.message}")
                case _:
                    pass
    except Exception as error:  # a closed connection, or a view out of step: the command in flight fails
        table.fail(f"{type(error).__name__}: {error}")


async def open_tables(
    urls: Sequence[str],
    hello: Callable[[int, int], bytes],
    sources: Sequence[tuple[str, Source]],
    tag: str,
    follows_view: bool,
) -> tuple[list[Table], list[asyncio.Task[None]]]:
    """Connect the seven members of a table per source (``hello(table, member)``: the first frame) and wait
    for their welcomes; with ``follows_view``, the GM's connection keeps its view current."""
    tables: list[Table] = []
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()

    async def join(table: Table, index: int) -> Member:
        ws = await connect(
            urls[table.index % len(urls)], compression=None, max_size=2**24, ping_interval=None, open_timeout=60
        )
        member = Member(ws)
        welcomed: asyncio.Future[None] = loop.create_future()
        tasks.append(loop.create_task(_reader(table, member, welcomed, follows_view and index == 0)))
        await ws.send(hello(table.index, index).decode(), text=True)
        async with asyncio.timeout(60):
            await welcomed
        return member

    for index, (load, source) in enumerate(sources):
        table = Table(index, load, source, f"{tag}-{index}-")
        tables.append(table)
        table.members = list(await asyncio.gather(*(join(table, m) for m in range(len(ROOM)))))
    return tables, tasks


async def _command(table: Table) -> None:
    """Send the table's next command and wait until it is acknowledged and on the GM's page."""
    n = table.commands + 1
    id = f"{table.tag}{n}"
    step = table.source.next(table, n, id)
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    table.commands, table.waiter = n, (n, id, done)
    table.ids[id] = n
    table.rolls += step.rolls
    if table.steps is not None:
        table.steps.append((step.member, len(step.frame), step.rolls))
    table.sent[n] = time.perf_counter()
    await table.members[step.member].ws.send(step.frame.decode(), text=True)
    async with asyncio.timeout(30):
        await done
    table.waiter = None


async def play(tables: Sequence[Table], seconds: float, rate: float | None) -> None:
    """Every table plays for ``seconds``: in a closed loop (``rate`` None), or at ``rate`` commands/s in all,
    spread evenly over the tables (a table whose last command is still in flight sends when it is done)."""
    start = time.perf_counter()
    deadline = start + seconds

    async def closed(table: Table) -> None:
        while time.perf_counter() < deadline:
            await _command(table)

    async def paced(table: Table, position: int, interval: float) -> None:
        at = start + interval * position / len(tables)
        while at < deadline:
            delay = at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            await _command(table)
            at = max(at + interval, time.perf_counter() - interval)  # late: no burst to catch up

    if rate is None:
        await asyncio.gather(*(closed(t) for t in tables))
    else:
        await asyncio.gather(*(paced(t, i, len(tables) / rate) for i, t in enumerate(tables)))


async def settle(tables: Sequence[Table], timeout: float = 30.0) -> None:
    """Wait until every command sent has reached its whole table."""
    deadline = time.perf_counter() + timeout
    while any(t.sent for t in tables):
        if time.perf_counter() > deadline:
            missing = sum(len(t.sent) for t in tables)
            raise RuntimeError(f"{missing} commands did not reach every connection of their table in {timeout:g}s")
        await asyncio.sleep(0.005)


def record(tables: Sequence[Table], on: bool) -> None:
    """Start (or stop) keeping each command sent and each patch received, for the floor to replay."""
    for table in tables:
        table.steps = [] if on else None
        for member in table.members:
            member.recorded = [] if on else None


# --- sources -----------------------------------------------------------------------------------------


@dataclass
class Rounds:
    """Agon: the ruleset's round, read off the GM's view; a decided contest is rewound to its start."""

    round: Round
    contest: str
    origin: int | None = None  # the version a decided contest is rewound to, once known

    def next(self, table: Table, n: int, id: str) -> Step:
        view = table.view
        assert view is not None, "the GM's view comes with its welcome"
        if self.origin is None and n > self.round.origin:
            self.origin = table.version  # after the first ``origin`` commands (0: as created)
        if decided(view):
            move = Move("gm", Rewind(to_version=self.origin or table.version), awaited=False)
        else:
            move = self.round.next_move(view)
        if move.awaited and not awaits(view, move.seat):
            raise Refusal(f"table {table.index} ({table.load}): {move} from a seat the view does not wait for")
        frame = _encode(Execute(id=id, contest=self.contest, command=move.command))
        return Step(SEAT_MEMBER[move.seat], frame, move.rolls)
