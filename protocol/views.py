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
    rules: RulesetView
