"""Table talk in the terminal client, through a pseudo-terminal against a real `agon serve`: a player says a line,
rolls dice and whispers to the GM at the prompt (an apostrophe is just a letter there), and reads what the table
and the GM's whispers say, by name."""

from __future__ import annotations

from pathlib import Path

import msgspec

from protocol.common import Seat
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_terminal import ann_plays, expect, quit_with_ctrl_d
from tests.engine.table import duel


async def test_a_player_says_rolls_and_whispers_at_the_prompt(agon_server: ServerFactory, tmp_path: Path) -> None:
    request = msgspec.structs.replace(
        duel(), seats=[Seat("gm", "gm", name="Gwen"), Seat("ann", "player", ["aria"], name="Ann")]
    )
    gm, contest, child = await ann_plays(agon_server(), request, tmp_path)
    try:
        await gm.say(contest, "welcome to the bridge")
        await expect(child, "Gwen: welcome to the bridge")  # where the talk stands, as the prompt opens
        await expect(child, "agon>")
        child.sendline("say I don't trust the rope")
        line = await gm.next_line(contest, after=1)
        assert (line.name, line.text) == ("Ann", "I don't trust the rope")
        await expect(child, "you: I don't trust the rope")
        child.sendline("say /roll 2d6+1 climbing")
        rolled = await gm.next_line(contest, after=2)
        assert rolled.roll is not msgspec.UNSET and rolled.text == "climbing"
        await expect(child, r"you rolls 2d6\+1 = \d+ \[\d, \d\] — climbing")
        child.sendline("whisper gm Aria hides the map")
        whispered = await gm.next_line(contest, after=3)
        assert (whispered.to, whispered.text) == ("gm", "Aria hides the map")
        await gm.say(contest, "the orc saw nothing", to="ann")
        await expect(child, r"Gwen \(whisper to you\): the orc saw nothing")
        child.sendline("whisper nobody hello")
        await expect(child, "nobody called 'nobody' at the table")
        child.sendline("say /roll 2d6+")
        await expect(child, r"refused: .*ends with “\+”.* \[talk/bad_roll\]")
        await quit_with_ctrl_d(child)
    finally:
        child.close(force=True)
        await gm.close()
