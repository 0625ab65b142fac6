"""The contest aggregate and the fold: state is a pure function of the stored envelopes.

The *effective history* is the list of steps (declarations, reveals and ruleset events) that count after
undo, redo and rewind; the full log, undone branches included, stays in the store for audit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar

import msgspec

from protocol.events import (
    Concluded,
    ContestCreated,
    Declared,
    Envelope,
    Redone,
    Revealed,
    Rewound,
    RulesetEvent,
    SeatReissued,
    Undone,
)
from server.engine.chain import GENESIS
from server.engine.ruleset import Ruleset

S = TypeVar("S")


class Step(msgspec.Struct, frozen=True):
    """One effective event with its version."""

    version: int
    event: Declared | Revealed | RulesetEvent
    batch_end: bool
    checkpoint: bool


class Contest(msgspec.Struct, Generic[S], frozen=True):
    id: str
    version: int
    head_hash: str
    created: ContestCreated
    rules: S
    declared: dict[str, Declared]  # the open window's declarations, by participant
    history: tuple[Step, ...]
    redo: tuple[tuple[Step, ...], ...]  # what undo and rewind removed, newest last
    commands: dict[str, int]  # "<principal>\x1f<command id>" -> the version its batch ended at
    concluded: Concluded | None = None
    generations: dict[str, int] = {}  # seat -> the invitation generation honoured (absent: 0)

    def generation(self, seat: str) -> int:
        return self.generations.get(seat, 0)

    def command_version(self, principal: str, command_id: str) -> int | None:
        return self.commands.get(command_key(principal, command_id))


def command_key(principal: str, command_id: str) -> str:
    return f"{principal}\x1f{command_id}"


class CorruptLog(Exception):
    """The envelopes do not form a contest (not a Refused: stored events are never refused by rules)."""


def begin(ruleset: Ruleset[S], envelope: Envelope) -> Contest[S]:
    event = envelope.event
    if not isinstance(event, ContestCreated) or envelope.version != 1 or envelope.prev_hash != GENESIS:
        raise CorruptLog(f"event {envelope.version}: a contest starts with contest.created at version 1")
    return Contest(
        id=envelope.contest,
        version=1,
        head_hash=envelope.hash,
        created=event,
        rules=ruleset.initial(event.setup, event.seats),
        declared={},
        history=(),
        redo=(),
        commands={command_key(envelope.actor.principal, envelope.command_id): 1},
    )


def _evolve(ruleset: Ruleset[S], rules: S, declared: dict[str, Declared], event: Any) -> tuple[S, dict[str, Declared]]:
    match event:
        case Declared():
            return rules, {**declared, event.participant: event}
        case Revealed():
            return ruleset.evolve(rules, event), {}
        case _:
            return ruleset.evolve(rules, event), declared


def _refold(ruleset: Ruleset[S], contest: Contest[S], steps: Iterable[Step]) -> tuple[S, dict[str, Declared]]:
    rules = ruleset.initial(contest.created.setup, contest.created.seats)
    declared: dict[str, Declared] = {}
    for step in steps:
        rules, declared = _evolve(ruleset, rules, declared, step.event)
    return rules, declared


def _cut(ruleset: Ruleset[S], contest: Contest[S], to_version: int) -> Contest[S]:
    kept = tuple(s for s in contest.history if s.version <= to_version)
    removed = tuple(s for s in contest.history if s.version > to_version)
    rules, declared = _refold(ruleset, contest, kept)
    return msgspec.structs.replace(contest, rules=rules, declared=declared, history=kept, redo=(*contest.redo, removed))


def apply(ruleset: Ruleset[S], contest: Contest[S], envelope: Envelope) -> Contest[S]:
    """Fold one stored envelope. Never refuses: stored events are facts."""
    if envelope.version != contest.version + 1 or envelope.prev_hash != contest.head_hash:
        raise CorruptLog(f"event {envelope.version} does not follow event {contest.version}")
    key = command_key(envelope.actor.principal, envelope.command_id)
    contest = msgspec.structs.replace(
        contest,
        version=envelope.version,
        head_hash=envelope.hash,
        commands={**contest.commands, key: envelope.version},
    )
    event = envelope.event
    match event:
        case Undone() | Rewound():
            return _cut(ruleset, contest, event.to_version)
        case Redone():
            restored = contest.redo[-1]
            rules, declared = contest.rules, contest.declared
            for step in restored:
                rules, declared = _evolve(ruleset, rules, declared, step.event)
            return msgspec.structs.replace(
                contest,
                rules=rules,
                declared=declared,
                history=contest.history + restored,
                redo=contest.redo[:-1],
            )
        case Concluded():
            return msgspec.structs.replace(contest, concluded=event, rules=ruleset.concluded(contest.rules))
        case SeatReissued():
            return msgspec.structs.replace(contest, generations={**contest.generations, event.seat: event.generation})
        case ContestCreated():
            raise CorruptLog(f"event {envelope.version}: a second contest.created")
        case _:
            rules, declared = _evolve(ruleset, contest.rules, contest.declared, event)
            step = Step(envelope.version, event, envelope.batch_end, envelope.checkpoint)
            return msgspec.structs.replace(
                contest, rules=rules, declared=declared, history=(*contest.history, step), redo=()
            )


def fold(ruleset: Ruleset[S], envelopes: Iterable[Envelope], contest: Contest[S] | None = None) -> Contest[S]:
    """The contest after ``envelopes``, starting from ``contest`` (a snapshot) or from nothing."""
    for envelope in envelopes:
        contest = begin(ruleset, envelope) if contest is None else apply(ruleset, contest, envelope)
    if contest is None:
        raise CorruptLog("no events")
    return contest


def last_effective(contest: Contest[Any]) -> int:
    return contest.history[-1].version if contest.history else 1


def undo_target(contest: Contest[Any]) -> int | None:
    """The previous checkpoint before the effective head, if any."""
    head = last_effective(contest)
    earlier = [s.version for s in contest.history if s.checkpoint and s.version < head]
    return earlier[-1] if earlier else None


def rewind_targets(contest: Contest[Any]) -> list[int]:
    """Versions the GM may rewind to: the ends of effective batches before the head."""
    head = last_effective(contest)
    return [s.version for s in contest.history if s.batch_end and s.version < head]
