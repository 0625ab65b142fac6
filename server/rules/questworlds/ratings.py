"""Ability ratings: a target number plus masteries, written ``14``, ``5W``, ``5W2`` (``M`` for ``W`` too).

An ability's *value* is ``TN + 20 * masteries``; modifiers add to the value, which is then split again.
Splitting keeps the target number in 1..20, so an exact multiple of 20 keeps its TN at 20: value 20 is
``20``, 21 is ``1W``, 40 is ``20W``, 41 is ``1W2``. A value of 0 or less has no masteries and its TN is the
value itself (``0``, ``-3``); such an ability always rolls Failure and rolls no die.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MASTERY_STEP = 20
"""What one mastery adds to an ability's value."""

MAX_MASTERIES = 100
"""The most masteries a written rating may have (``20W100``): far beyond any table, and it keeps every
value a rating gives small."""

MAX_VALUE = MASTERY_STEP * (MAX_MASTERIES + 1)
"""The value of ``20W100``, the highest rating that can be written (2020): a rating with its modifiers must
stay at or below it, so that what a contest rolls with is a rating a player could have typed."""

_WRITTEN = re.compile(r"(?P<tn>[+-]?\d+)(?:(?P<mark>[WM])(?P<count>\d+)?)?", re.IGNORECASE)
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-"})


@dataclass(frozen=True)
class Rating:
    """A target number (1..20, or 0 or less for an ability that cannot roll) and a number of masteries."""

    tn: int
    masteries: int = 0

    def __post_init__(self) -> None:
        if self.masteries < 0:
            raise ValueError(f"a rating cannot have {self.masteries} masteries")
        if self.tn > MASTERY_STEP:
            raise ValueError(f"a target number is at most {MASTERY_STEP}, got {self.tn}")
        if self.masteries > 0 and self.tn < 1:
            raise ValueError(f"a rating with masteries needs a target number of 1 to {MASTERY_STEP}, got {self.tn}")

    @property
    def value(self) -> int:
        """``TN + 20 * masteries``: the starting AP it gives and the number modifiers are added to."""
        return self.tn + MASTERY_STEP * self.masteries

    @property
    def rolls(self) -> bool:
        """False for a value of 0 or less, which always rolls Failure and rolls no die."""
        return self.tn >= 1

    @classmethod
    def from_value(cls, value: int) -> Rating:
        """Split a value into TN and masteries, keeping the TN in 1..20 (20 is ``20``, 21 is ``1W``)."""
        if value <= 0:
            return cls(tn=value)
        masteries, rest = divmod(value - 1, MASTERY_STEP)
        return cls(tn=rest + 1, masteries=masteries)

    @classmethod
    def parse(cls, text: str) -> Rating:
        """Read a rating as written at the table: ``14``, ``5W``, ``5W2``, ``5M``, ``5M2``, ``0``, ``-3``.

        Raises ValueError for anything else, including a bare ``W``, ``0W``, ``21W``, ``5W0`` and ``25``
        (a rating above 20 is written with masteries).
        """
        written = text.strip().translate(_MINUS_SIGNS)
        match = _WRITTEN.fullmatch(written)
        if match is None:
            raise ValueError(
                f"cannot read rating {text!r}: write a target number, then W (or M) and an optional number of "
                "masteries, e.g. 14, 5W, 5W2"
            )
        tn = int(match["tn"])
        if match["mark"] is None:
            if tn > MASTERY_STEP:
                raise ValueError(
                    f"cannot read rating {text!r}: a target number is at most {MASTERY_STEP}; "
                    f"write higher ratings with masteries, e.g. {cls.from_value(tn)}"
                )
            return cls(tn=tn)
        masteries = 1 if match["count"] is None else int(match["count"])
        if masteries < 1:
            raise ValueError(f"cannot read rating {text!r}: the number of masteries after W is at least 1")
        if masteries > MAX_MASTERIES:
            raise ValueError(f"cannot read rating {text!r}: the number of masteries after W is at most {MAX_MASTERIES}")
        if not 1 <= tn <= MASTERY_STEP:
            raise ValueError(
                f"cannot read rating {text!r}: the target number before W is 1 to {MASTERY_STEP}, got {tn}"
            )
        return cls(tn=tn, masteries=masteries)

    def modified(self, modifier: int) -> Rating:
        """The rating after adding a modifier (negative for a penalty) to its value and splitting again."""
        return Rating.from_value(self.value + modifier)

    def __str__(self) -> str:
        if self.masteries == 0:
            return str(self.tn)
        if self.masteries == 1:
            return f"{self.tn}W"
        return f"{self.tn}W{self.masteries}"
