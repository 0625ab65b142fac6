"""The terminal client through a pseudo-terminal, against a real `agon serve`: a player joins from an
invitation link, completes and declares a bid at the prompt, sees the reveal and the roll as they happen,
gets help and a refusal with its code; a spectator may only look; a bad link is one line."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pexpect

from clients.python import AgonClient
from protocol.events import Declare
from protocol.rulesets import extended as x
from tests.e2e.conftest import AGON, ServerFactory
from tests.engine.table import duel


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    env.update(
        {"TERM": "xterm-256color", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1", "COLUMNS": "120", "LINES": "40"}
    )
    return pexpect.spawn(AGON, list(args), cwd=str(cwd), env=env, encoding="utf-8", timeout=20, dimensions=(40, 120))


async def expect(child: pexpect.spawn, pattern: str) -> None:
    """Wait for ``pattern`` without blocking the event loop the test's own clients run on. In a thread: with
    pexpect's ``async_`` mode, output that arrived between two expects was missed on a loaded machine."""
    await asyncio.to_thread(child.expect, pattern)


async def test_a_player_declares_at_the_prompt_and_sees_the_reveal(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)

    child = spawn("play", f"{server.http_url}/#{invitations.seats['ann']}", cwd=tmp_path)
    try:
        await expect(child, "you are ann \\(player\\), playing aria")
        await expect(child, "waiting for aria, orc")
        await expect(child, "agon>")
        # Tab completes the command and the contestant: "dec" or "ar" alone would be refused
        child.send("dec\t")
        await asyncio.sleep(0.3)
        child.send(" ar\t")
        await asyncio.sleep(0.3)
        child.send(" 5 lunge at the knees\r")
        await expect(child, "ok \\(version 3\\)")
        await expect(child, "your sealed intent for aria: “lunge at the knees”, bid 5")

        await gm.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
        await expect(child, "declarations revealed: aria: “lunge at the knees”, bid 5; orc: “swing”, bid 4")
        await expect(child, "orc intends: “swing”, bid 4")
        await gm.command(contest, x.Roll(faces=[1, 10]))
        await expect(child, "aria rolled 1 \\(Critical\\), orc rolled 10 \\(Success\\)")

        child.send("help declare\r")
        await expect(child, "declare CONTESTANT BID \\[ACTION...\\]")
        child.send("spend nobody\r")
        await expect(child, "refused: .*\\[rules/no_such_contestant\\]")
        child.send("undo\r")  # a GM command: a player is not offered it
        await expect(child, "no command 'undo'")
        child.send("declare aria many\r")
        await expect(child, "BID: 'many' is not a whole number")
        child.send("quit\r")
        await expect(child, pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    await gm.close()


async def test_a_spectator_watches_and_may_only_look(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    child = spawn("watch", f"{server.http_url}/#{created.invitations.spectator}", cwd=tmp_path)
    try:
        await expect(child, "you are ~spectator \\(spectator\\)")
        await expect(child, "agon>")
        child.send("declare aria 3\r")
        await expect(child, "no command 'declare'")
        await gm.follow(created.contest, created.invitations.gm)
        await gm.command(created.contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
        await expect(child, "orc has declared \\(sealed; commitment")
        child.sendeof()
        await expect(child, pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    await gm.close()


async def test_a_bad_link_is_one_line(tmp_path: Path) -> None:
    for link, said in (("http://127.0.0.1:1/", "no token"), ("bridge", "neither a token")):
        process = await asyncio.create_subprocess_exec(
            AGON, "play", link, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=tmp_path
        )
        _, err = await process.communicate()
        assert process.returncode == 1
        lines = err.decode().strip().splitlines()
        assert len(lines) == 1 and said in lines[0] and "Traceback" not in err.decode()
