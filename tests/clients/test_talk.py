"""The Python client's table talk without a socket: the core keeps each line once, in order, and answers a ``say``
with its ``said``; the terminal reads ``say`` and ``whisper`` as typed, finds a seat by its name, and prints a line
by names."""

from __future__ import annotations

import pytest

from clients.python.core import Answered, ClientCore, Heard
from clients.python.terminal.fields import Usage
from clients.python.terminal.talk import Said as Typed
from clients.python.terminal.talk import Seat, recipient, shown, typed
from protocol.codec import encode
from protocol.talk import RolledDie, Said, Talk, TalkLine, TalkRoll


def said(n: int, text: str = "hi", **extra: object) -> TalkLine:
    return TalkLine(n=n, from_="ann", name="Ann", text=text, at="2026-11-26T21:04:05.000+00:00", version=3, **extra)  # type: ignore[arg-type]


def test_the_core_keeps_each_line_once_in_order_and_answers_a_say() -> None:
    core = ClientCore()
    mirror = core.expect("duel", "token")
    outputs = core.receive(encode(Talk(contest="duel", lines=[said(1), said(2)], more=True)))
    assert [type(o) for o in outputs] == [Heard] and mirror.earlier_talk
    assert core.receive(encode(Said(contest="duel", line=said(2)))) == []  # already held
    outputs = core.receive(encode(Said(contest="duel", line=said(3, "mine"), id="say-1")))
    assert [type(o) for o in outputs] == [Heard, Answered]
    assert isinstance(outputs[1], Answered) and outputs[1].id == "say-1"
    core.receive(encode(Talk(contest="duel", lines=[said(2), said(3), said(4)], more=False)))  # a resume's history
    assert [line.n for line in mirror.talk] == [1, 2, 3, 4] and mirror.earlier_talk
    assert core.receive(encode(Said(contest="other", line=said(1)))) == []  # a contest not followed


def test_the_terminal_reads_say_and_whisper_as_typed() -> None:
    assert typed("say I don't trust the rope") == Typed("I don't trust the rope")
    assert typed("  SAY /roll 2d6+1 to hit ") == Typed("/roll 2d6+1 to hit")
    assert typed("whisper gm she's lying") == Typed("she's lying", "gm")
    assert typed("declare aria 5 lunge") is None
    for line in ("say", "say   ", "whisper gm", "whisper"):
        with pytest.raises(Usage):
            typed(line)


def test_a_whisper_finds_its_seat_by_name_or_id() -> None:
    seats = [Seat("gm", "gm", "Gwen"), Seat("ann", "player", "Ann"), Seat("bob", "player", "")]
    assert recipient("GM", seats, "player") == "gm" and recipient("gwen", seats, "player") == "gm"
    assert recipient("Ann", seats, "gm") == "ann" and recipient("bob", seats, "gm") == "bob"
    assert recipient("gm", [], "player") == "gm"  # nothing told yet: the GM's seat is "gm"
    with pytest.raises(Usage) as named:
        recipient("carol", seats, "gm")
    assert "whisper to Ann, bob" in str(named.value)
    with pytest.raises(Usage) as player:
        recipient("carol", seats, "player")
    assert "whisper gm TEXT" in str(player.value)


def test_a_line_is_printed_by_names() -> None:
    assert shown(said(1, "the rope holds?"), "bob").plain == "21:04 Ann: the rope holds?"
    assert shown(said(1, "psst", to="gm", to_name="Gwen"), "ann").plain == "21:04 you (whisper to Gwen): psst"
    roll = TalkRoll("2d6+1", [RolledDie(6, 4), RolledDie(6, 2)], 1, 7, "ab")
    assert shown(said(2, "to hit", roll=roll), "gm").plain == "21:04 Ann rolls 2d6+1 = 7 [4, 2] — to hit"
    assert shown(said(3, "\x1b[2Jhi"), None).plain == "21:04 Ann: [2Jhi"  # no control sequence reaches the screen
