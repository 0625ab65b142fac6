"""A client's copy of one contest's view, kept current by welcomes and patches and checked by view hashes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.messages import Notice, Patch, TokenRole, Welcome
from protocol.patch import PatchError, apply, view_hash
from protocol.presence import Presence
from protocol.talk import TalkLine


@dataclass
class ContestMirror:
    """What this client sees of a contest. ``doc`` is the view as plain JSON at ``version``.

    ``patches`` records every patch applied, as (from, to), across reconnections: a resumed client shows
    exactly what it received, so gaps and repeats can be checked."""

    contest: str
    token: str
    role: TokenRole | None = None
    seat: str | None = None
    contestants: list[str] = field(default_factory=list)
    version: int = 0
    doc: dict[str, Any] | None = None
    patches: list[tuple[int, int]] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    welcomes: list[Welcome] = field(default_factory=list)
    desyncs: int = 0
    in_sync: bool = False
    presence: Presence | None = None  # who is at the table now (the last ``presence`` frame)
    talk: list[TalkLine] = field(default_factory=list)  # the table talk received, by line number, each once
    earlier_talk: bool = False  # the history after the first welcome left earlier lines out

    def hear(self, lines: list[TalkLine]) -> list[TalkLine]:
        """Take lines of table talk (a ``talk`` history or a ``said``); those not received before, in order."""
        known = {line.n for line in self.talk}
        new = sorted({line.n: line for line in lines if line.n not in known}.values(), key=lambda line: line.n)
        if new:
            self.talk = sorted([*self.talk, *new], key=lambda line: line.n)
        return new

    def welcome(self, message: Welcome) -> bool:
        """Take a welcome; False when it cannot be trusted (the client must ask for a fresh view)."""
        self.welcomes.append(message)
        self.role, self.seat, self.contestants = message.role, message.seat, list(message.contestants)
        if message.view is not None:
            if view_hash(message.view) != message.view_hash:
                return self._lost()
            self.doc, self.version, self.in_sync = message.view, message.version, True
            return True
        # A resume: our own view at ``version`` is the base of the patches that follow.
        if self.doc is None or self.version != message.version or view_hash(self.doc) != message.view_hash:
            return self._lost()
        self.in_sync = True
        return True

    def patch(self, message: Patch) -> bool:
        """Apply a patch; False on a gap or a hash mismatch (the view is then out of sync)."""
        if not self.in_sync:
            return True  # waiting for a fresh view: patches until then are moot
        if self.doc is None or message.from_ != self.version:
            return self._lost()
        try:
            updated = apply(self.doc, message.ops)
        except PatchError:
            return self._lost()
        if view_hash(updated) != message.view_hash:
            return self._lost()
        self.doc, self.version = updated, message.to
        self.patches.append((message.from_, message.to))
        return True

    def _lost(self) -> bool:
        self.desyncs += 1
        self.in_sync = False
        return False

    @property
    def rules(self) -> dict[str, Any]:
        """The ruleset's part of the view."""
        if self.doc is None:
            raise LookupError(f"no view of {self.contest} yet")
        rules: dict[str, Any] = self.doc["rules"]
        return rules
