"""Table talk, the pure part: who may say what to whom, who may read a line, its bounds, ``/roll`` and its dice,
and the check of an exported talk (rolls against the revealed seed, gapless numbering).

Talk lives beside the contest's log, in a sibling stream (``talk_stream``), so the rules' fold never sees it:
undo and rewind leave it as it is. Its dice come from a talk seed of their own, kept as a store secret and
revealed in the export once the contest is concluded; the faces of line ``n`` are
``server.engine.dice.face(seed, -n, j, sides)``: a negative key, never a contest version. Whispered rolls use a
second seed, revealed only where whispers are (an export whose contest lets auditors read them), so the
revealed table seed never tells what a whispered roll came up as.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from protocol import errors
from protocol.common import Seat
from protocol.errors import Refused
from protocol.events import ContestCreated
from protocol.talk import MAX_TEXT, RolledDie, TalkLine, TalkRoll, TalkSetting
from server.engine.dice import face, seed_hash
from server.engine.names import NO_NAMES, Names, seat_called
from server.store.port import sibling

MAX_LINES = 5000
"""The most lines a contest's talk keeps; then ``talk/full``."""
HISTORY = 200
"""The most lines the ``talk`` message after a welcome carries."""
RATE_LINES = 8
RATE_SECONDS = 10.0
"""A seat says at most ``RATE_LINES`` lines in any ``RATE_SECONDS`` seconds (counted per server process)."""
MAX_DICE = 20
MIN_SIDES, MAX_SIDES = 2, 1000
MAX_MODIFIER = 1000

STREAM = "talk"
"""The name of the contest's sibling stream holding its talk (``<contest>~talk``)."""

SEED = "talk-seed"
"""The store secret holding a contest's talk seed (made when the contest is created, or at its first roll)."""

Kind = Literal["table", "whispers"]
"""The two seeds of a contest's talk, both derived from its talk seed: one for rolls said to the whole table, one
for whispered rolls."""


def talk_stream(contest: str) -> str:
    return sibling(contest, STREAM)


def seed_by_hash(digest: str) -> str:
    """The store secret holding a talk seed one of whose kinds hashes to ``digest``: never replaced, so two
    processes making a seed at once both keep theirs, and the one the talk's first roll used wins."""
    return f"{SEED}:{digest}"


def revealed_by_hash(digest: str) -> str:
    """The store secret holding a revealed seed of an imported contest, by its hash."""
    return f"talk-revealed:{digest}"


def derived(seed: bytes, kind: Kind) -> bytes:
    """The seed of one kind of roll, from the contest's talk seed."""
    return hmac.new(seed, f"agon-talk:{kind}".encode(), hashlib.sha256).digest()


def kind_of(line: TalkLine) -> Kind:
    return "whispers" if line.whisper else "table"


def setting_of(created: ContestCreated) -> TalkSetting:
    talk = created.talk
    return talk if isinstance(talk, TalkSetting) else TalkSetting()


# --- who may read, who may say ------------------------------------------------------------------------------


def may_read(line: TalkLine, principal: str, role: str, setting: TalkSetting) -> bool:
    """Table lines: every seat and auditor, and spectators when the setting lets them. A whisper: its sender's
    seat and its recipient's seat only, and auditors when the setting lets them."""
    if not line.whisper:
        return role != "spectator" or setting.spectators
    if principal in (line.from_, line.to):
        return role in ("gm", "player")
    return role == "auditor" and setting.auditors_whispers


def shown_name(seat: Seat, things: Names = NO_NAMES) -> str:
    """The name shown for a speaker's seat: the one the GM typed, else "GM" for a GM's seat (as chats label it),
    else by whom it plays ("Aria's player", ``things``: the names of the contest's contestants)."""
    if seat.role == "gm" and not (isinstance(seat.name, str) and seat.name.strip()):
        return "GM"
    return seat_called(seat, things)


def recipient(speaker: Seat, to: str | None, seats: Sequence[Seat]) -> Seat | None:
    """The seat a whisper goes to (None: the whole table); refused when the roles do not allow it."""
    if to is None:
        return None
    seat = next((s for s in seats if s.id == to), None)
    if seat is None:
        raise Refused(errors.TALK_UNKNOWN_SEAT, f"to: the contest has no seat {to!r} to whisper to")
    if speaker.role == "player" and seat.role != "gm":
        raise Refused(errors.TALK_NOT_ALLOWED, "to: a player whispers only to the GM")
    if speaker.role == "gm" and seat.role != "player":
        raise Refused(errors.TALK_NOT_ALLOWED, "to: the GM whispers to a player's seat")
    return seat


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""Control characters (but tab and newline), and those that reorder the text around them: a line is text to read."""


def cleaned(text: str) -> str:
    """The text trimmed and without control characters; refused when empty or longer than ``MAX_TEXT``."""
    text = _CONTROL.sub("", text).strip()
    if not text:
        raise Refused(errors.TALK_EMPTY, "text: there is nothing to say")
    if len(text) > MAX_TEXT:
        raise Refused(errors.TALK_TOO_LONG, f"text: {len(text)} characters; a line holds at most {MAX_TEXT}")
    return text


class RateWindow:
    """How many lines each seat said lately: at most ``lines`` in any ``seconds`` (the caller's clock)."""

    def __init__(self, lines: int = RATE_LINES, seconds: float = RATE_SECONDS, seats: int = 10_000) -> None:
        self.lines = lines
        self.seconds = seconds
        self._said: dict[tuple[str, str], deque[float]] = {}
        self._seats = seats

    def check(self, contest: str, seat: str, now: float) -> None:
        """Refused ``talk/too_fast`` when the seat has said its fill lately."""
        said = self._said.get((contest, seat))
        if said is None:
            return
        while said and said[0] <= now - self.seconds:
            said.popleft()
        if len(said) >= self.lines:
            wait = max(1, round(said[0] + self.seconds - now))
            raise Refused(
                errors.TALK_TOO_FAST,
                f"too fast: at most {self.lines} lines in {self.seconds:g} seconds; wait {wait} s",
            )

    def count(self, contest: str, seat: str, now: float) -> None:
        """Count a line the seat said now."""
        key = (contest, seat)
        said = self._said.get(key)
        if said is None:
            if len(self._said) >= self._seats:  # forget the seats that said nothing lately
                for old in [k for k, q in self._said.items() if not q or q[-1] <= now - self.seconds]:
                    del self._said[old]
            said = self._said[key] = deque(maxlen=self.lines)
        said.append(now)


# --- /roll ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One term of a roll's expression: ``count`` dice of ``sides`` (sides 0: the number ``count``), with a sign."""

    sign: int
    count: int
    sides: int
    written: str  # as written, without the sign: "2d6", "d20", "3"


@dataclass(frozen=True)
class Expression:
    terms: tuple[Term, ...]

    @property
    def text(self) -> str:
        """The expression written compactly: ``2d6+1``, ``d20``, ``3d8-2+1d4``."""
        out = ""
        for i, term in enumerate(self.terms):
            sign = "-" if term.sign < 0 else ("+" if i else "")
            out += sign + term.written
        return out

    @property
    def sides(self) -> list[int]:
        """The dice to roll, in order."""
        return [t.sides for t in self.terms if t.sides for _ in range(t.count)]

    @property
    def modifier(self) -> int:
        return sum(t.sign * t.count for t in self.terms if not t.sides)

    def total(self, faces: Sequence[int]) -> int:
        signs = [t.sign for t in self.terms if t.sides for _ in range(t.count)]
        return sum(s * f for s, f in zip(signs, faces, strict=True)) + self.modifier


_ROLL = re.compile(r"/(?:roll|r)(?=\s|$)", re.IGNORECASE)
_TERM = re.compile(r"(\d*)[dD](\d+)|(\d+)")
_BIG = 6  # digits: a number longer than this is out of every bound anyway (and never converted)


def _bad(message: str) -> Refused:
    return Refused(errors.TALK_BAD_ROLL, message)


def roll_of(text: str) -> tuple[Expression, str] | None:
    """A ``/roll`` (or ``/r``) line's expression and comment; None for any other line. Refused
    ``talk/bad_roll`` with a sentence saying what is wrong."""
    start = _ROLL.match(text)
    if start is None:
        return None
    rest = text[start.end() :].strip()
    if not rest:
        raise _bad("write the dice after /roll, for example /roll 2d6+1 or /r d20")
    return parse_expression(rest)


def parse_expression(rest: str) -> tuple[Expression, str]:
    """``NdS`` terms and whole numbers joined by ``+`` or ``-`` (spaces allowed around them), then an optional
    comment after a space."""
    rest = rest.strip()
    terms: list[Term] = []
    i, sign = 0, 1
    if rest[:1] in ("+", "-"):
        sign, i = (-1 if rest[0] == "-" else 1), _skip(rest, 1)
    while True:
        match = _TERM.match(rest, i)
        end = match.end() if match is not None else i
        if match is None or (end < len(rest) and not rest[end].isspace() and rest[end] not in "+-"):
            word = rest[i:].split(maxsplit=1)[0] if rest[i:].strip() else rest
            raise _bad(f"“{word}” is neither dice (like 2d6 or d20) nor a whole number")
        terms.append(_term(sign, match))
        after = _skip(rest, end)
        if after < len(rest) and rest[after] in "+-":
            sign, i = (-1 if rest[after] == "-" else 1), _skip(rest, after + 1)
            if i >= len(rest):
                raise _bad(f"“{rest}” ends with “{rest[after]}”: a die like d6 or a number must follow it")
            continue
        comment = rest[after:]
        break
    expression = Expression(tuple(terms))
    dice = expression.sides
    if not dice:
        raise _bad(f"“{expression.text}” rolls no die: add one, like d20 or 2d6")
    if len(dice) > MAX_DICE:
        raise _bad(f"“{expression.text}” rolls {len(dice)} dice; a roll has at most {MAX_DICE}")
    if abs(expression.modifier) > MAX_MODIFIER:
        raise _bad(f"“{expression.text}” adds {expression.modifier}; its numbers add up to at most ±{MAX_MODIFIER}")
    return expression, comment


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _term(sign: int, match: re.Match[str]) -> Term:
    count_text, sides_text, number = match.group(1), match.group(2), match.group(3)
    if number is not None:
        if len(number) > _BIG or int(number) > MAX_MODIFIER:
            raise _bad(f"{number} is too big: numbers in a roll are at most {MAX_MODIFIER}")
        return Term(sign, int(number), 0, str(int(number)))
    if len(sides_text) > _BIG or not MIN_SIDES <= int(sides_text) <= MAX_SIDES:
        raise _bad(f"d{sides_text}: a die has {MIN_SIDES} to {MAX_SIDES} sides")
    if len(count_text) > _BIG or (count_text and int(count_text) > MAX_DICE):
        raise _bad(f"{count_text}d{sides_text}: a roll has at most {MAX_DICE} dice")
    count = int(count_text) if count_text else 1
    if count < 1:
        raise _bad(f"{count_text}d{sides_text} rolls no die: write at least 1d{sides_text}")
    written = f"{count}d{int(sides_text)}" if count_text else f"d{int(sides_text)}"
    return Term(sign, count, int(sides_text), written)


def rolled(expression: Expression, seed: bytes, n: int) -> TalkRoll:
    """The roll of line ``n``: each die's face from the seed, keyed ``-n`` (never a contest's version)."""
    sides = expression.sides
    faces = [face(seed, -n, j, s) for j, s in enumerate(sides)]
    return TalkRoll(
        expression=expression.text,
        dice=[RolledDie(sides=s, face=f) for s, f in zip(sides, faces, strict=True)],
        modifier=expression.modifier,
        total=expression.total(faces),
        seed_hash=seed_hash(seed),
    )


def spoken(line: TalkLine) -> str:
    """A line as one line of text: ``Ann: the rope holds?``, ``Ann (whisper to GM): …``, ``GM rolls 2d6+1 = 7
    [4, 2] — to hit``."""
    who = line.name if not isinstance(line.to, str) else f"{line.name} (whisper to {line.to_name or line.to})"
    roll = line.roll
    if isinstance(roll, TalkRoll):
        faces = ", ".join(str(die.face) for die in roll.dice)
        return f"{who} rolls {roll.expression} = {roll.total} [{faces}]" + (f" — {line.text}" if line.text else "")
    return f"{who}: {line.text}"


def committed(lines: Iterable[TalkLine], kind: Kind) -> str | None:
    """The hash of the seed the talk's rolls of that kind use: the first such roll's (None before any)."""
    for line in lines:
        if isinstance(line.roll, TalkRoll) and kind_of(line) == kind:
            return line.roll.seed_hash
    return None


# --- the check of an exported talk ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TalkReport:
    lines: int
    rolls_checked: int  # dice checked against a revealed seed
    unchecked: int  # rolls whose seed is not revealed (the contest is not concluded)
    problem: str | None


def check_talk(entries: Sequence[TalkLine | int], seeds: Mapping[str, bytes], concluded: bool) -> TalkReport:
    """Check a talk as an export holds it: ``entries`` are the lines and the numbers of the lines left out (an int),
    in order; ``seeds`` the revealed seeds by their hash. Line numbers run 1, 2, … without a gap; each roll reads
    as its expression says, adds up, and — once the contest is concluded, when every roll's seed must be revealed
    — shows the faces its seed gives; all the rolls of one kind use one seed."""
    checked = unchecked = 0
    used: dict[Kind, str] = {}
    for index, entry in enumerate(entries, start=1):
        n = entry if isinstance(entry, int) else entry.n
        if n != index:
            return TalkReport(index - 1, checked, unchecked, f"talk line {index}: numbered {n} (a gap or a reordering)")
        if isinstance(entry, int) or not isinstance(entry.roll, TalkRoll):
            continue
        problem, dice = _check_roll(entry, entry.roll, seeds, concluded, used)
        if problem is not None:
            return TalkReport(index - 1, checked, unchecked, f"talk line {n}: {problem}")
        if dice is None:
            unchecked += 1
        else:
            checked += dice
    return TalkReport(len(entries), checked, unchecked, None)


def _check_roll(
    line: TalkLine, roll: TalkRoll, seeds: Mapping[str, bytes], concluded: bool, used: dict[Kind, str]
) -> tuple[str | None, int | None]:
    """What is wrong with a roll (or None), and how many dice were checked (None: its seed is not revealed)."""
    try:
        expression, comment = parse_expression(roll.expression)
    except Refused as refused:
        return f"the roll “{roll.expression}” does not read: {refused.message}", None
    if comment:
        return f"the roll “{roll.expression}” is not an expression alone", None
    faces = [d.face for d in roll.dice]
    if [d.sides for d in roll.dice] != expression.sides or expression.modifier != roll.modifier:
        return f"the dice of “{roll.expression}” are not what it rolls", None
    if any(not 1 <= d.face <= d.sides for d in roll.dice):
        return f"the roll “{roll.expression}” shows a face no die has", None
    if expression.total(faces) != roll.total:
        return f"the roll “{roll.expression}” adds up to {expression.total(faces)}, not {roll.total}", None
    kind = kind_of(line)
    if used.setdefault(kind, roll.seed_hash) != roll.seed_hash:
        return "this roll comes from another seed than the talk's earlier rolls", None
    seed = seeds.get(roll.seed_hash)
    if seed is None:
        if concluded:
            return f"the seed of the roll “{roll.expression}” is not revealed", None
        return None, None
    expected = [face(seed, -line.n, j, d.sides) for j, d in enumerate(roll.dice)]
    if expected != faces:
        return f"the roll “{roll.expression}” shows {faces}, but the revealed seed gives {expected}", None
    return None, len(faces)
