"""The installed client library against a real `agon serve`: a player bot and a GM bot, each joining from
its invitation link, play a whole extended contest (server dice) to its conclusion; the player's socket is
killed mid-contest and the client resumes by itself; refusals arrive as typed errors with the server's code, also
the refusal of a WebSocket opened elsewhere than at /ws."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from clients.python import (
    AgonClient,
    AuthRefusal,
    Disconnected,
    Extended,
    ProtocolRefusal,
    Refusal,
    RuleRefusal,
    join,
)
from protocol.common import Seat
from protocol.events import CreateContest
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory, ServerProcess


def bridge() -> CreateContest:
    return CreateContest(
        ruleset="extended",
        title="The troll bridge",
        dice="server",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"])],
        setup=x.ExtendedSetup(
            prize="cross the bridge",
            contestants=[
                x.Contestant(id="aria", name="Aria", ability="Sword", rating="15", hero_points=2),
                x.Contestant(id="troll", name="Troll", ability="Club", rating="14"),
            ],
        ),
    )


def contestant(view: dict[str, Any], id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for c in view["rules"]["contestants"] if c["id"] == id)
    return found


def must_declare(view: dict[str, Any], id: str) -> bool:
    seal = view["seal"]
    return seal is not None and id in seal["expected"] and id not in {d["participant"] for d in seal["declared"]}


async def player_bot(table: Extended, log: list[str], killed: asyncio.Event) -> None:
    """Ann plays Aria: bids everything she has, spends a hero point on a failed exchange of her own."""
    async for _ in table.client.changes(table.contest):
        view = table.view
        rules = view["rules"]
        if view["concluded"]:
            return
        if must_declare(view, "aria"):
            aria = contestant(view, "aria")
            await table.intent("aria", "a reckless charge", bid=max(aria["ap"], aria["starting_ap"]))
            log.append("ann declared")
            if not killed.is_set():
                killed.set()
                table.client.abort()  # the network fails; the client resumes by itself
        exchange = rules["exchange"]
        # After every roll Ann answers for Aria: spend a point where one is offered (only where it could change
        # the result), else let the result stand — also when she holds no point that could (a Critical, say).
        if rules["phase"] == "rolled" and exchange is not None and "aria" in exchange["answers_pending"]:
            if (
                "aria" in exchange["hero_points_pending"]
                and exchange["actor"] == "aria"
                and exchange["actor_level"] == "Failure"
            ):
                await table.spend_hero_point("aria")
                log.append("ann spent a hero point")
            else:
                await table.pass_hero_point("aria")


async def gm_bot(table: Extended, log: list[str]) -> None:
    """The GM runs the troll, rolls every exchange and concludes the decided contest."""
    async for _ in table.client.changes(table.contest):
        view = table.view
        rules = view["rules"]
        if view["concluded"]:
            return
        if must_declare(view, "troll"):
            await table.intent("troll", "smash", bid=contestant(view, "troll")["ap"])
        elif rules["phase"] == "ready":
            await table.roll()
            log.append(f"gm rolled exchange {rules['round']}")
        elif rules["phase"] == "decided":
            await table.conclude()
            log.append("gm concluded")


async def test_two_bots_play_a_whole_contest_with_the_client_library(agon_server: ServerFactory) -> None:
    server = agon_server()
    creator = await AgonClient.connect(server.ws_url)
    created = await creator.create(bridge())
    await creator.close()
    links = {seat: f"{server.http_url}/#{token}" for seat, token in created.invitations.seats.items()}

    gm = await join(links["gm"])
    ann = await join(links["ann"])
    assert isinstance(gm, Extended) and isinstance(ann, Extended)
    assert (ann.contest, ann.mirror.role, ann.mirror.seat) == (created.contest, "player", "ann")
    assert ann.view["rules"]["contestants"][0]["controlled_by_you"] is True

    with pytest.raises(RuleRefusal) as refused:
        await ann.intent("aria", "too much", bid=99)
    assert refused.value.code == "rules/bid_too_high"
    with pytest.raises(RuleRefusal) as refused:
        await ann.roll()
    assert refused.value.code.startswith("rules/")

    log: list[str] = []
    killed = asyncio.Event()
    async with asyncio.timeout(60):
        await asyncio.gather(player_bot(ann, log, killed), gm_bot(gm, log))

    assert killed.is_set() and "ann declared" in log and log[-1] == "gm concluded"
    assert gm.view["concluded"] and ann.view["concluded"]
    outcome = gm.view["rules"]["outcome"]
    assert outcome is not None and outcome["winner"] in ("aria", "troll", None)
    assert gm.view["seed"] is not None  # server dice: the seed is revealed at the end
    await ann.client.wait_version(ann.contest, gm.mirror.version)
    hidden = {k: ann.view["rules"][k] for k in ("contestants", "chart")}  # the troll's AP before it moved
    assert ann.view["rules"] == gm.view["rules"] | hidden
    assert ann.view["rules"]["chart"]["ap"]["troll"][0] is None and gm.view["rules"]["chart"]["ap"]["troll"][0] > 0
    assert ann.mirror.desyncs == 0 and len(ann.mirror.welcomes) >= 2  # resumed at least once
    await gm.client.close()
    await ann.client.close()


async def test_the_client_resumes_by_itself_when_the_server_comes_back(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    first = agon_server()
    creator = await AgonClient.connect(first.ws_url)
    created = await creator.create(bridge())
    await creator.close()
    ann = await join(f"{first.http_url}/#{created.invitations.seats['ann']}")
    assert isinstance(ann, Extended)
    ann.client.backoff = (0.05, 0.4)
    declared = await ann.intent("aria", "wait for it", bid=3)

    first.terminate()  # the server goes away: every attempt to resume fails for a while
    await asyncio.sleep(1.0)
    again = ServerProcess(first.store, tmp_path, first.env)
    again.port = first.port  # the same address, as after a restart
    again.start()
    try:
        await ann.client.wait_for(lambda: len(ann.mirror.welcomes) >= 2, timeout=20)
        assert ann.mirror.welcomes[-1].view is None  # resumed from its own view, not sent a fresh one
        assert ann.mirror.version == declared.version and ann.mirror.desyncs == 0
        gm = await join(f"{again.http_url}/#{created.invitations.gm}")
        assert isinstance(gm, Extended)
        revealed = await gm.intent("troll", "bellow", bid=2)
        await ann.client.wait_version(ann.contest, revealed.version)
        assert ann.view["rules"]["intents"]["troll"]["action"] == "bellow"
        await gm.client.close()
    finally:
        await ann.client.close()
        again.kill()


async def test_a_revoked_invitation_ends_the_client_instead_of_retrying(agon_server: ServerFactory) -> None:
    server = agon_server()
    creator = await AgonClient.connect(server.ws_url)
    created = await creator.create(bridge())
    await creator.close()
    gm = await join(f"{server.http_url}/#{created.invitations.gm}")
    ann = await join(f"{server.http_url}/#{created.invitations.seats['ann']}")
    ann.client.backoff = (0.5, 1.0)  # the re-issue below lands before the first attempt to resume
    told: list[tuple[str, str]] = []
    ann.client.on_lost(lambda contest, refused: told.append((contest, refused.code)))

    async def follow_changes() -> int:
        seen = 0
        async for _ in ann.client.changes(ann.contest):
            seen += 1
        return seen

    watching = asyncio.create_task(follow_changes())
    ann.client.abort()  # ann's network drops; meanwhile the GM re-issues ann's invitation
    await gm.client.invite(gm.contest, "ann")
    with pytest.raises(AuthRefusal) as refused:
        async with asyncio.timeout(10):
            await watching
    assert refused.value.code == "auth/revoked"
    assert told == [(ann.contest, "auth/revoked")]
    with pytest.raises(Refusal):  # and anyone asking later is told at once
        async for _ in ann.client.changes(ann.contest):
            pass
    assert ann.client.closed  # nothing left to resume: the client ended

    # Connected when the GM re-issues the seat: the server's last word ends the changes just the same.
    again = await gm.client.invite(gm.contest, "ann")
    ann = await join(f"{server.http_url}/#{again.token}")
    watching = asyncio.create_task(follow_changes())
    await asyncio.sleep(0.1)
    await gm.client.invite(gm.contest, "ann")
    with pytest.raises(AuthRefusal, match="re-issued"):
        async with asyncio.timeout(10):
            await watching
    await ann.client.wait_for(lambda: ann.client.closed, timeout=5)  # and it hangs up: nothing left to follow
    with pytest.raises(Disconnected):
        await ann.intent("aria", "one more try", bid=1)
    await ann.client.close()
    await gm.client.close()


async def test_a_websocket_opened_at_the_wrong_path_raises_the_servers_word(agon_server: ServerFactory) -> None:
    server = agon_server()
    creator = await AgonClient.connect(server.ws_url)
    token = (await creator.create(bridge())).invitations.seats["ann"]
    await creator.close()
    root = server.ws_url.removesuffix("ws")  # ws://127.0.0.1:PORT/
    with pytest.raises(ProtocolRefusal) as refused:
        await AgonClient.connect(root)
    assert refused.value.code == "protocol/wrong_path" and "/ws" in refused.value.message
    with pytest.raises(ProtocolRefusal) as refused:
        await join(token, server=root)
    assert refused.value.code == "protocol/wrong_path"
    # the page's http address names the WebSocket beneath it
    for address in (server.http_url, f"{server.http_url}/ws"):
        ann = await join(token, server=address)
        assert ann.mirror.seat == "ann"
        await ann.client.close()
