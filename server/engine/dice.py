"""Committed dice: faces derived from a secret seed, checkable by anyone once the seed is revealed.

Face j of the roll keyed ``key`` is the first HMAC-SHA256(seed, key ‖ index ‖ attempt) value below the
largest multiple of ``sides`` that fits in 64 bits, reduced modulo ``sides`` (rejection sampling, so no
face is favoured). Physical dice are typed in and only checked for range.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from protocol.common import Dice, DiceMode
from protocol.errors import BAD_FACE, DICE_MODE, Refused

_SPACE = 1 << 64


def seed_hash(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def face(seed: bytes, key: int, index: int, sides: int) -> int:
    """The face of die ``index`` of the roll keyed ``key``: 1..sides."""
    if sides < 1:
        raise ValueError("a die has at least one side")
    limit = _SPACE - _SPACE % sides
    attempt = 0
    while True:
        message = f"{key}:{index}:{attempt}".encode()
        value = int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest()[:8], "big")
        if value < limit:
            return value % sides + 1
        attempt += 1


class Roller:
    """The dice of one decision. Server mode derives faces; physical mode takes the typed ones.

    ``key`` is the version the decision's first event will get, so no two decisions share a key.
    """

    def __init__(self, mode: DiceMode, seed: bytes | None, key: int) -> None:
        if mode == "server" and seed is None:
            raise ValueError("server dice need a seed")
        self.mode = mode
        self._seed = seed
        self._key = key
        self._next = 0

    def revealed_seed(self) -> str | None:
        """The seed in hex, for the conclusion that reveals it (None for physical dice)."""
        return self._seed.hex() if self._seed is not None else None

    def roll(self, sides: Sequence[int], typed: Sequence[int] | None = None) -> Dice:
        if self.mode == "physical":
            return self._typed(sides, typed)
        if typed is not None:
            raise Refused(DICE_MODE, "this contest rolls server dice: do not send faces")
        assert self._seed is not None
        first = self._next
        faces = [face(self._seed, self._key, first + j, n) for j, n in enumerate(sides)]
        self._next += len(sides)
        return Dice(source="server", sides=list(sides), faces=faces, key=self._key, first=first)

    @staticmethod
    def _typed(sides: Sequence[int], typed: Sequence[int] | None) -> Dice:
        if typed is None:
            raise Refused(DICE_MODE, "this contest uses physical dice: send the faces rolled (faces)")
        if len(typed) != len(sides):
            raise Refused(BAD_FACE, f"faces: expected {len(sides)} faces, got {len(typed)}")
        for j, (value, n) in enumerate(zip(typed, sides, strict=True)):
            if not 1 <= value <= n:
                raise Refused(BAD_FACE, f"faces[{j}]: {value} is not a face of a d{n}")
        return Dice(source="physical", sides=list(sides), faces=list(typed))


def check(dice: Dice, seed: bytes) -> bool:
    """True when server dice match the seed (physical dice: when every face is in range)."""
    if dice.source == "physical":
        return all(1 <= f <= n for f, n in zip(dice.faces, dice.sides, strict=True))
    if len(dice.faces) != len(dice.sides):
        return False
    return all(
        face(seed, dice.key, dice.first + j, n) == f
        for j, (f, n) in enumerate(zip(dice.faces, dice.sides, strict=True))
    )
