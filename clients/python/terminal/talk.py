"""Table talk at the terminal's prompt: ``say`` to the whole table, ``whisper NAME`` to one seat, ``talk`` to read
the last lines again; and each line as the terminal shows it, by the names people read.

``say`` and ``whisper`` take the rest of the line as it was typed (quotes and apostrophes included), so they are
read before the prompt's other commands, which split their words like a shell."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from clients.python.mirror import ContestMirror
from clients.python.terminal.fields import Usage
from protocol.talk import TalkLine, TalkRoll

SAY = "say"
WHISPER = "whisper"
TALK = "talk"

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Said:
    """A ``say`` or ``whisper`` typed at the prompt: the text, and the name of the seat whispered to."""

    text: str
    to: str | None = None


def typed(line: str) -> Said | None:
    """The talk a prompt line asks for (None: it is another command); Usage when it lacks words."""
    stripped = line.strip()
    word, _, rest = stripped.partition(" ")
    match word.lower():
        case "say":
            if not rest.strip():
                raise Usage("usage: say TEXT (or say /roll 2d6+1)")
            return Said(rest.strip())
        case "whisper":
            name, _, text = rest.strip().partition(" ")
            if not name or not text.strip():
                raise Usage("usage: whisper NAME TEXT (a player whispers to the GM; the GM to a player)")
            return Said(text.strip(), name)
    return None


@dataclass(frozen=True)
class Seat:
    id: str
    role: str
    name: str


def seats_of(mirror: ContestMirror) -> list[Seat]:
    """The contest's seats and their names, from what the server told this follower (a GM's welcome lists them;
    everyone's presence does)."""
    found: dict[str, Seat] = {}
    presence = mirror.presence
    for seat in presence.seats if presence is not None else []:
        found[seat.seat] = Seat(seat.seat, seat.role, seat.name if isinstance(seat.name, str) else "")
    welcome = mirror.welcomes[-1] if mirror.welcomes else None
    for listed in welcome.seats or [] if welcome is not None else []:
        found.setdefault(listed.id, Seat(listed.id, listed.role, listed.name if isinstance(listed.name, str) else ""))
    return list(found.values())


def recipient(name: str, seats: Sequence[Seat], role: str | None) -> str:
    """The seat id a whisper to ``name`` goes to: a seat's name or id (any case); ``gm``: the GM's seat."""
    wanted = name.casefold()
    for seat in seats:
        if wanted in (seat.id.casefold(), seat.name.casefold()):
            return seat.id
    if wanted == "gm":
        return next((seat.id for seat in seats if seat.role == "gm"), "gm")
    if role == "gm":
        players = ", ".join(seat.name or seat.id for seat in seats if seat.role == "player")
        raise Usage(f"nobody called {name!r} at the table" + (f": whisper to {players}" if players else ""))
    raise Usage(f"nobody called {name!r} at the table: a player whispers to the GM (whisper gm TEXT)")


def shown(line: TalkLine, me: str | None) -> Text:
    """One line as the terminal prints it: ``21:04 Ann: text``; a whisper marked (and coloured) as one; a roll with
    its total and its dice: ``21:05 Ann rolls 2d6+1 = 7 [4, 2] — to hit``."""
    clean = _CONTROL.sub("", line.text)
    who = "you" if line.from_ == me else _CONTROL.sub("", line.name)
    if isinstance(line.to, str):
        to = "you" if line.to == me else _CONTROL.sub("", line.to_name if isinstance(line.to_name, str) else line.to)
        who = f"{who} (whisper to {to})"
    roll = line.roll
    if isinstance(roll, TalkRoll):
        faces = ", ".join(str(die.face) for die in roll.dice)
        said = f"{who} rolls {roll.expression} = {roll.total} [{faces}]" + (f" — {clean}" if clean else "")
    else:
        said = f"{who}: {clean}"
    out = Text(f"{line.at[11:16]} ", style="dim")
    out.append(said, style="magenta" if isinstance(line.to, str) else "")
    return out


def last(mirror: ContestMirror, count: int) -> list[TalkLine]:
    return mirror.talk[-count:] if count > 0 else []
