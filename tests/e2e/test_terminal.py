"""The terminal client through a pseudo-terminal, against a real `agon serve`: a player joins from an
invitation link, completes and declares a bid at the prompt, sees the reveal and the roll as they happen,
gets help and a refusal with its code; the screen says names, never ids, and the commands take the names; a
player of a scored contest types its ruleset's commands and sees the tallies move, and leaves with one line when
the GM re-issues its invitation; a spectator may only look; a bad link, a forged one, a bare token without a
server, or a server address that is not the WebSocket's is one line; an http address is taken for its
WebSocket."""

from __future__ import annotations

import asyncio
import io
import os
import re
import shlex
from pathlib import Path

import pexpect

from clients.python import AgonClient
from protocol.common import Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import extended as x
from protocol.rulesets import scored as s
from tests.e2e.conftest import AGON, ServerFactory, ServerProcess
from tests.e2e.test_scored import sequence
from tests.engine.table import duel

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # the terminal's control sequences


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    """``agon ARGS`` on a pseudo-terminal; its stderr goes to ``cwd / "stderr"``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    env.update(
        {"TERM": "xterm-256color", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1", "COLUMNS": "120", "LINES": "40"}
    )
    command = f"exec {shlex.join([AGON, *args])} 2>stderr"
    return pexpect.spawn(
        "/bin/sh", ["-c", command], cwd=str(cwd), env=env, encoding="utf-8", timeout=20, dimensions=(40, 120)
    )


async def quit_with_ctrl_d(child: pexpect.spawn) -> None:
    """Ctrl-D at the prompt ends the client, with status 0."""
    child.sendeof()
    await expect(child, pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


async def one_line(*args: str, cwd: Path) -> str:
    """``agon ARGS`` without a terminal, which must fail with status 1 and exactly one line on stderr: that line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    process = await asyncio.create_subprocess_exec(
        AGON, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=cwd, env=env
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    lines = err.decode().splitlines()
    assert process.returncode == 1 and len(lines) == 1, err.decode()
    return lines[0]


async def expect(child: pexpect.spawn, pattern: str) -> None:
    """Wait for ``pattern`` without blocking the event loop the test's own clients run on. In a thread: with
    pexpect's ``async_`` mode, output that arrived between two expects was missed on a loaded machine."""
    await asyncio.to_thread(child.expect, pattern)


async def ann_plays(server: ServerProcess, request: CreateContest, cwd: Path) -> tuple[AgonClient, str, pexpect.spawn]:
    """A contest created and followed by its GM, and ``agon play`` started with ann's invitation."""
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(request)
    await gm.follow(created.contest, created.invitations.gm)
    return gm, created.contest, spawn("play", f"{server.http_url}/#{created.invitations.seats['ann']}", cwd=cwd)


async def test_a_player_declares_at_the_prompt_and_sees_the_reveal(agon_server: ServerFactory, tmp_path: Path) -> None:
    gm, contest, child = await ann_plays(agon_server(), duel(), tmp_path)
    try:
        await expect(child, "you are ann \\(player\\), playing Aria")
        await expect(child, "Your move: seal an intent")  # the top of the screen: whose move it is
        await expect(child, "waiting for Aria, Orc")
        await expect(child, "at the table: the GM, Aria's player \\(you\\)")  # the GM follows too
        await expect(child, "agon>")
        # Tab completes the command and the contestant's name: "dec" or "ar" alone would be refused
        child.send("decla\t")
        await asyncio.sleep(0.3)
        child.send(" ar\t")
        await asyncio.sleep(0.3)
        child.send(" 5 lunge at the knees\r")
        await expect(child, "ok \\(version 3\\)")
        await expect(child, "Waiting for the GM to seal an intent")
        await expect(child, "your sealed intent for Aria: “lunge at the knees”, bid 5")

        await gm.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
        await expect(child, "declarations revealed: Aria: “lunge at the knees”, bid 5; Orc: “swing”, bid 4")
        await expect(child, "Orc intends: “swing”, bid 4")
        await gm.command(contest, x.Roll(faces=[1, 10]))
        await expect(child, "Aria rolled 1 \\(Critical\\), Orc rolled 10 \\(Success\\)")
        await expect(child, "Your move: let the roll stand or spend a hero point")

        child.send("who\r")
        await expect(child, "at the table: the GM, Aria's player \\(you\\)")  # the GM follows too
        child.send("help declare\r")
        await expect(child, "declare CONTESTANT BID \\[ACTION...\\]")
        child.send("spend nobody\r")  # no such name: the names there are, before anything is sent
        await expect(child, "no contestant is called “nobody”: the contestants are Aria, Orc")
        child.send("accept aria\r")
        await expect(child, "refused: .*\\[rules/no_proposal\\]")
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


def ambush() -> CreateContest:
    """Aria Vance (Ann Lee's PC) against Grisk: no id is its name."""
    return CreateContest(
        ruleset="extended",
        title="Ambush in the pass",
        dice="physical",
        contest="ambush",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["p1"], name="Ann Lee")],
        setup=x.ExtendedSetup(
            prize="the pass",
            contestants=[
                x.Contestant(id="p1", name="Aria Vance", ability="Sword", rating="15", hero_points=1),
                x.Contestant(id="npc-7", name="Grisk", ability="Axe", rating="12"),
            ],
        ),
    )


async def test_the_screen_says_names_and_commands_take_them(agon_server: ServerFactory, tmp_path: Path) -> None:
    gm, contest, child = await ann_plays(agon_server(), ambush(), tmp_path)
    screen = io.StringIO()
    child.logfile_read = screen
    try:
        await expect(child, "you are Ann Lee \\(player\\), playing Aria Vance ·")
        await expect(child, "Aria Vance \\* +Sword +15 +15 +1")
        await expect(child, "waiting for Aria Vance, Grisk")
        await expect(child, "agon>")
        child.send("declare aria vance 5 lunge at Grisk\r")  # a name with a space, typed as is
        await expect(child, "ok \\(version 3\\)")
        await expect(child, "your sealed intent for Aria Vance: “lunge at Grisk”, bid 5")

        await gm.command(contest, Declare(participant="npc-7", payload=x.Intent(action="swing", bid=4)))
        await expect(child, "Grisk intends: “swing”, bid 4")
        await gm.command(contest, x.ProposeBid(contestant="p1", bid=4))
        await expect(child, 'the GM proposes bid 4 for Aria Vance \\(accept "Aria Vance"\\)')
        child.send('accept "Aria Vance"\r')  # as the hint says
        await expect(child, "ok \\(version (\\d+)\\)")
        await gm.wait_version(contest, int(child.match.group(1)))
        await gm.command(contest, x.Roll(faces=[3, 15]))
        await expect(child, "exchange 1: Aria Vance \\(Success, rolled 3\\) against Grisk \\(Failure, rolled 15\\)")
        await expect(child, "waiting for Aria Vance to let it stand")
        child.send("stand ARIA VANCE\r")
        await expect(child, "ok \\(version (\\d+)\\)")
        await gm.wait_version(contest, int(child.match.group(1)))
        child.send("spend Grisk the Bold\r")
        await expect(child, 'no contestant is called “Grisk the Bold”: the contestants are "Aria Vance", Grisk')
        child.send("quit\r")
        await expect(child, pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    shown = ANSI.sub("", screen.getvalue())
    assert not re.search(r"(?<![\w-])(p1|npc-7)(?![\w-])", shown), shown  # no id on the screen, ever
    await gm.close()


async def test_a_scored_player_types_its_rulesets_commands_and_leaves_when_revoked(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    gm, contest, child = await ann_plays(agon_server(), sequence(), tmp_path)
    await gm.command(contest, s.StartRound(initiative="ogre", responder="aria"))
    try:
        await expect(child, "you are ann \\(player\\), playing Aria, Brin")
        await expect(child, "Ogre \\(initiative\\) against Aria")
        await expect(child, "agon>")
        child.send("help keep_story_points\r")
        await expect(child, "keep_story_points CONTESTANT")
        child.send("declare aria gambit feint\r")
        await expect(child, "your sealed tactic for Aria: action feint, tactic gambit")
        await gm.command(contest, Declare(participant="ogre", payload=s.Tactic(action="overhead smash")))
        await expect(child, "Aria: gambit “feint”")
        child.send("roll 13 16\r")  # physical dice: the initiative's face first
        await expect(child, "waiting for Aria \\(spend_story_point or keep_story_points\\)")
        child.send("shift_points aria brin many\r")
        await expect(child, "points: 'many' is not valid")
        child.send("start_round ogre aria\r")  # the GM's: a player is not offered it
        await expect(child, "no command 'start_round'")
        child.send("keep_story_points aria\r")
        await expect(child, "ok \\(version (\\d+)\\)")
        rules = (await gm.wait_version(contest, int(child.match.group(1)))).rules
        await expect(child, f"Aria \\* +heroes +Sword +15 +{rules['contestants'][0]['rp']}")

        await gm.invite(contest, "ann")  # the GM re-issues ann's invitation: this link is dead
        await expect(child, pexpect.EOF)
        after_prompt = ANSI.sub("", child.before.rsplit("agon>", 1)[-1])
    finally:
        child.close(force=True)
    assert child.exitstatus == 1
    assert after_prompt.strip() == ""  # no log lines of the client library on the screen either
    [said] = (tmp_path / "stderr").read_text(encoding="utf-8").splitlines()  # one line, and nothing else
    assert said.startswith("agon: this contest is lost to you: ") and said.endswith("[auth/revoked]"), said
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
        await expect(child, "Orc has declared \\(sealed\\)")
        await quit_with_ctrl_d(child)
    finally:
        child.close(force=True)
    await gm.close()


async def test_a_bad_link_is_one_line(tmp_path: Path) -> None:
    for link, said in (("http://127.0.0.1:1/", "no token"), ("bridge", "neither a token")):
        assert said in await one_line("play", link, cwd=tmp_path)


async def test_a_forged_link_is_one_line(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    token = (await gm.create(duel())).invitations.seats["ann"]
    await gm.close()
    head, claims, signature = token.split(".")
    forged = f"{head}.{claims}.{signature[::-1]}"
    said = await one_line("play", f"{server.http_url}/#{forged}", cwd=tmp_path)
    assert said.startswith("agon: the server refused this invitation: ") and said.endswith("[auth/bad_token]"), said


async def test_the_server_address_of_a_bare_token(agon_server: ServerFactory, tmp_path: Path) -> None:
    server = agon_server()
    gm = await AgonClient.connect(server.ws_url)
    token = (await gm.create(duel())).invitations.spectator
    await gm.close()
    said = await one_line("watch", token, cwd=tmp_path)
    assert said == "agon: a bare token names no server: add --server ws://HOST:PORT/ws"
    said = await one_line("watch", token, "--server", f"{server.http_url.replace('http', 'ftp')}/ws", cwd=tmp_path)
    assert "not a server address: expected ws://HOST:PORT/ws" in said
    # the server's own word when the WebSocket is opened at / instead of /ws
    said = await one_line("watch", token, "--server", server.ws_url.removesuffix("ws"), cwd=tmp_path)
    assert said.startswith("agon: the server refused this connection: ") and "/ws" in said, said
    assert said.endswith("[protocol/wrong_path]"), said
    # an http address (the one the browser shows) names the WebSocket at /ws beneath it
    for address in (server.http_url, f"{server.http_url}/ws"):
        child = spawn("watch", token, "--server", address, cwd=tmp_path)
        try:
            await expect(child, "you are ~spectator \\(spectator\\)")
            await expect(child, "agon>")
            await quit_with_ctrl_d(child)
        finally:
            child.close(force=True)
