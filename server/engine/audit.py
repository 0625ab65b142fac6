"""Pure checks of a contest log: hash chain, commitments, dice against the revealed seed, and the fold."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from protocol.common import Dice
from protocol.errors import Refused
from protocol.events import Concluded, ContestCreated, Declared, Envelope, Revealed
from server.engine import dice
from server.engine.chain import GENESIS, envelope_hash
from server.engine.commitment import commit
from server.engine.contest import Contest, CorruptLog, fold
from server.engine.ruleset import Ruleset


@dataclass(frozen=True)
class Finding:
    """The first thing wrong with a log: the event (version, or line when unreadable) and what."""

    version: int
    problem: str

    def __str__(self) -> str:
        return f"event {self.version}: {self.problem}"


@dataclass(frozen=True)
class Report:
    events: int
    rolls_checked: int
    dice_unchecked: bool  # server dice whose seed is not revealed yet
    finding: Finding | None


def dice_in(value: Any) -> Iterator[Dice]:
    """Every Dice record inside an event, however deeply nested."""
    if isinstance(value, Dice):
        yield value
    elif isinstance(value, msgspec.Struct):
        for name in value.__struct_fields__:
            yield from dice_in(getattr(value, name))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from dice_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from dice_in(item)


def audit(envelopes: Sequence[Envelope], ruleset_named: Callable[[str], Ruleset[Any]]) -> Report:
    """Check a whole log against the rulesets ``ruleset_named`` finds; the report names the first bad event."""
    finding = _chain(envelopes)
    broken, unfolded = (None, None) if finding is not None else _refold(envelopes, ruleset_named)
    finding = finding or broken
    rolls, unchecked = 0, False
    if finding is None:
        rolls, unchecked, finding = _dice(envelopes)
    return Report(len(envelopes), rolls, unchecked, finding or unfolded)


def _chain(envelopes: Sequence[Envelope]) -> Finding | None:
    prev = GENESIS
    contest = envelopes[0].contest if envelopes else ""
    for i, e in enumerate(envelopes, start=1):
        if e.version != i:
            return Finding(i, f"version {e.version} where {i} was expected (a gap or a reordering)")
        if e.contest != contest:
            return Finding(i, f"belongs to contest {e.contest!r}, not {contest!r}")
        if e.prev_hash != prev:
            return Finding(i, "prev_hash does not match the previous event's hash")
        if envelope_hash(e) != e.hash:
            return Finding(i, "hash mismatch: the event was altered")
        prev = e.hash
    return None


def _dice(envelopes: Sequence[Envelope]) -> tuple[int, bool, Finding | None]:
    created = envelopes[0].event if envelopes else None
    seed_hex = next((e.event.seed for e in envelopes if isinstance(e.event, Concluded)), None)
    seed: bytes | None = None
    if isinstance(created, ContestCreated) and created.dice == "server" and seed_hex is not None:
        seed = bytes.fromhex(seed_hex)
        if hashlib.sha256(seed).hexdigest() != created.seed_hash:
            return 0, False, Finding(1, "the revealed seed does not match the committed seed hash")
    used: set[tuple[int, int]] = set()
    rolls, unchecked = 0, False
    for e in envelopes:
        for d in dice_in(e.event):
            if d.source == "server":
                keys = {(d.key, d.first + j) for j in range(len(d.faces))}
                if d.key > e.version or keys & used:
                    return rolls, unchecked, Finding(e.version, "server dice reuse a key already used")
                used |= keys
                if seed is None:
                    unchecked = True
                    continue
            if not dice.check(d, seed or b""):
                return rolls, unchecked, Finding(e.version, f"dice {d.faces} do not match the revealed seed")
            rolls += len(d.faces)
    return rolls, unchecked, None


def _refold(
    envelopes: Sequence[Envelope], ruleset_named: Callable[[str], Ruleset[Any]]
) -> tuple[Finding | None, Finding | None]:
    """Fold the log once with the engine's own fold, checking the commitments on the way: the first broken
    commitment and the first event that does not fold.

    A reveal must publish exactly the declarations of its window that the contest folded up to just before it
    holds (``Contest.declared``): what undo, redo and rewind left effective, as the live contest revealed it.
    Once the fold breaks, only each event's own commitments are checked (the fold's finding stands)."""
    rules: Ruleset[Any] | None = None
    unfolded: Finding | None = None
    if not envelopes or not isinstance(envelopes[0].event, ContestCreated):
        unfolded = Finding(1, "a log starts with contest.created")
    else:
        try:
            rules = ruleset_named(envelopes[0].event.ruleset)
        except Refused as exc:
            unfolded = Finding(1, exc.message)
    contest: Contest[Any] | None = None
    broken: Finding | None = None
    for e in envelopes:
        if broken is None:
            declared = None if unfolded is not None else contest.declared if contest is not None else {}
            broken = _kept(e, declared)
        if unfolded is None and rules is not None:
            try:
                contest = fold(rules, [e], contest)
            except (CorruptLog, Refused, KeyError, ValueError, AssertionError, StopIteration) as exc:
                unfolded = Finding(e.version, f"does not fold: {exc}")
        if broken is not None and unfolded is not None:
            break
    return broken, unfolded


def _kept(e: Envelope, declared: dict[str, Declared] | None) -> Finding | None:
    """Whether the event keeps its commitments: a declaration its own, a reveal each entry's and, when the
    contest's declarations before it are known (``declared``), those of its window, each once."""
    event = e.event
    if isinstance(event, Declared):
        if event.payload is None or event.salt is None:
            return Finding(e.version, "a stored declaration lacks its payload or salt")
        if commit(event.salt, event.payload) != event.commitment:
            return Finding(e.version, f"the commitment of {event.participant!r} does not match its payload")
    elif isinstance(event, Revealed):
        for entry in event.entries:
            if commit(entry.salt, entry.payload) != entry.commitment:
                return Finding(e.version, f"the revealed payload of {entry.participant!r} breaks its commitment")
        if declared is None:
            return None
        expected = {p: d.commitment for p, d in declared.items() if d.window == event.window}
        revealed: set[str] = set()
        for entry in event.entries:
            if entry.participant in revealed or expected.get(entry.participant) != entry.commitment:
                return Finding(e.version, f"{entry.participant!r} revealed something it never declared")
            revealed.add(entry.participant)
        left_out = sorted(expected.keys() - revealed)
        if left_out:
            return Finding(e.version, f"the reveal leaves out the declaration of {left_out[0]!r}")
    return None
