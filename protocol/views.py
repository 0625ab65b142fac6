"""What a viewer is shown of a contest: the engine's part and the ruleset's part."""

from __future__ import annotations

import msgspec

from protocol.common import DiceMode
from protocol.events import Declaration
from protocol.rulesets import RulesetView


class DeclarationView(msgspec.Struct, frozen=True):
    """A sealed declaration: its payload only for its author and the GM, its commitment for everyone."""

    participant: str
    commitment: str
    payload: Declaration | None


class SealView(msgspec.Struct, frozen=True):
    window: str
    expected: list[str]
    declared: list[DeclarationView]


class WaitView(msgspec.Struct, frozen=True):
    """One thing the contest waits for: from whom and what, as every page says it ("Waiting for Ann to seal an
    intent", "Your move: confirm exchange 3").

    ``seats``: the ids of the seats that must act (the GM's seats when it is the GM: for a contestant no player
    controls and for the GM's own steps); a page whose seat is among them says it is its move. ``who``: those
    seats as a person reads them ("Ann", "Ann and Bo", "Ann or the GM", "the GM"; "someone" when who is awaited is
    secret from this viewer, with ``seats`` empty). ``doing``: a short verb phrase ("seal an intent")."""

    seats: list[str]
    who: str
    doing: str


class ContestView(msgspec.Struct, frozen=True):
    contest: str
    ruleset: str
    title: str
    version: int
    dice: DiceMode
    seed_hash: str | None
    seed: str | None  # revealed when the contest is concluded
    concluded: bool
    seal: SealView | None
    can_undo: bool
    can_redo: bool
    waiting: list[WaitView]  # what the contest waits for, and from whom; empty once it is concluded
    rules: RulesetView
