"""The complete player in docs/client.md, run as its reader would: saved to a file outside the checkout and run
with the installed Python against a real `agon serve`, where a GM bot plays the other side to the end."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from clients.python import AgonClient, Extended, join
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_client_library import bridge, gm_bot

DOC = Path(__file__).resolve().parents[2] / "docs" / "client.md"


async def test_the_documented_player_plays_a_contest_to_its_end(agon_server: ServerFactory, tmp_path: Path) -> None:
    [example] = re.findall(r"```python example\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    script = tmp_path / "player.py"
    script.write_text(example, encoding="utf-8")

    server = agon_server()
    creator = await AgonClient.connect(server.ws_url)
    created = await creator.create(bridge())
    await creator.close()
    link = f"{server.http_url}/#{created.invitations.seats['ann']}"
    gm = await join(f"{server.http_url}/#{created.invitations.gm}")
    assert isinstance(gm, Extended)

    player = await asyncio.create_subprocess_exec(
        sys.executable, str(script), link, cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    log: list[str] = []
    try:
        async with asyncio.timeout(60):
            out, err = (await asyncio.gather(player.communicate(), gm_bot(gm, log)))[0]
    finally:
        if player.returncode is None:
            player.kill()
            await player.wait()
    text = out.decode()
    assert player.returncode == 0, err.decode()
    assert f"joined {created.contest} as ann, playing aria" in text
    assert "declared a bid of" in text and "Aria declared, sealed" in text
    winner = gm.view["rules"]["outcome"]["winner"] or "nobody"
    assert f"the contest is over: {winner} won" in text.splitlines()
    await gm.client.close()
