"""A GM re-issues a player's link on one process while the old link keeps writing on another: nothing the old
link sends is stored after the re-issue, and the new link is honoured at once on every process.

Used by the e2e test (a dozen re-issues) and by ``python -m tests.torture`` (as many as asked)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass

from clients.python.client import AgonClient
from clients.python.errors import Disconnected, Refusal
from protocol.codec import decode
from protocol.events import Declare, Envelope, SeatReissued
from protocol.messages import Follow
from protocol.rulesets import extended as x
from server.store import open_store
from tests.net.duel import duel

OLD_LINKS = 8  # connections writing with the link about to be re-issued, each every ``interval`` seconds


@dataclass
class RaceReport:
    reissues: int = 0
    old_link_commands: int = 0  # sent with a link while (or after) it was being re-issued
    old_link_acked: int = 0
    stored_after_reissue: int = 0  # commands of an older link stored after the re-issue that revoked it
    new_link_refused: int = 0  # a fresh link refused auth/revoked on the other process


async def reissue_race(gm_url: str, player_url: str, store: str, reissues: int, interval: float = 0.03) -> RaceReport:
    """``reissues`` rounds: the old link writes through ``player_url`` while the GM re-issues it through
    ``gm_url``; then the new link follows through ``player_url`` and becomes the old link of the next round.
    The stored log is read back from ``store`` and checked event by event."""
    report = RaceReport()
    gm = await AgonClient.connect(gm_url)
    created = await gm.create(duel(contest=f"reissue-{uuid.uuid4().hex[:8]}"))
    contest = created.contest
    await gm.follow(contest, created.invitations.gm)
    token = created.invitations.seats["ann"]
    try:
        for generation in range(reissues):
            links = [
                await AgonClient.connect(player_url, follow=[Follow(contest, token)], timeout=10)
                for _ in range(OLD_LINKS)
            ]
            stop = asyncio.Event()
            writers = [
                asyncio.create_task(_write(link, contest, f"g{generation}-{n}", interval, stop, report))
                for n, link in enumerate(links)
            ]
            await asyncio.sleep(4 * interval)
            token = (await gm.invite(contest, "ann")).token
            report.reissues += 1
            await asyncio.sleep(4 * interval)  # the old links go on writing after the re-issue
            stop.set()
            await asyncio.gather(*writers)
            for link in links:
                await link.close()
            try:  # the new link, at once, on the process that may not have read the re-issue yet
                fresh = await AgonClient.connect(player_url, follow=[Follow(contest, token)], timeout=10)
                await fresh.close()
            except Refusal as refused:
                if refused.code != "auth/revoked":
                    raise
                report.new_link_refused += 1
    finally:
        await gm.close()
    report.stored_after_reissue = await _stored_after_reissue(store, contest)
    return report


async def _write(
    link: AgonClient, contest: str, prefix: str, interval: float, stop: asyncio.Event, report: RaceReport
) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        report.old_link_commands += 1
        intent = x.Intent(action=f"lunge {prefix}-{n}", bid=1 + n % 5)
        with contextlib.suppress(Refusal, Disconnected, TimeoutError):
            await link.command(contest, Declare(participant="aria", payload=intent), id=f"{prefix}-{n}", timeout=10)
            report.old_link_acked += 1
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(interval):
                await stop.wait()


async def _stored_after_reissue(store_url: str, contest: str) -> int:
    """Events stored from a link of an older generation than Ann's seat had when they were appended."""
    store = open_store(store_url)
    try:
        envelopes = [decode(r.data, Envelope) for r in await store.read(contest)]
    finally:
        await store.close()
    honoured, late = 0, 0
    for envelope in envelopes:
        if isinstance(envelope.event, SeatReissued) and envelope.event.seat == "ann":
            honoured = envelope.event.generation
        elif envelope.actor.principal == "ann" and int(envelope.command_id[1:].partition("-")[0]) < honoured:
            late += 1
    return late
