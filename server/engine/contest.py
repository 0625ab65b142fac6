"""The contest aggregate and the fold: state is a pure function of the stored envelopes.

The *effective history* is the list of steps (declarations, reveals and ruleset events) that count after
undo, redo and rewind; the full log, undone branches included, stays in the store for audit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar, cast

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


class Step(msgspec.Struct, frozen=True, gc=False):
    """One effective event with its version (never in a reference cycle, so left out of the garbage
    collector's work: a long history costs no collection time)."""

    version: int
    event: Declared | Revealed | RulesetEvent
    batch_end: bool
    checkpoint: bool


class Contest(msgspec.Struct, Generic[S], frozen=True):
    """A contest folded up to ``version``.

    Folding is linear: ``history`` and ``commands`` are shared, append-only containers. A contest owns the
    first ``effective`` steps of ``history`` and the commands of ``commands`` up to its own version; folding
    the next event from the newest contest of a lineage (``lineage[0]`` is its version) appends in place,
    folding from an older one copies its part first. So every contest stays the value it was.
    """

    id: str
    version: int
    head_hash: str
    created: ContestCreated
    rules: S
    declared: dict[str, Declared]  # the open window's declarations, by participant
    history: list[Step]  # the effective steps are the first ``effective``
    redo: tuple[tuple[Step, ...], ...]  # what undo and rewind removed, newest last
    commands: dict[str, int]  # "<principal>\x1f<command id>" -> the version its batch started at
    concluded: Concluded | None = None
    generations: dict[str, int] = {}  # seat -> the invitation generation honoured (absent: 0)
    effective: int = -1  # how many steps of ``history`` are this contest's (-1: all of them)
    checkpoint_at: int | None = None  # the newest checkpoint among the effective steps
    checkpoint_before: int | None = None  # the checkpoint before that one
    lineage: list[int] = msgspec.field(default_factory=list)  # [the version of the lineage's newest contest]
    batch_ends: dict[int, int] = msgspec.field(default_factory=dict)  # first -> last version of longer batches
    elided: int = 0  # effective steps before ``history`` that are not held (a snapshot stores none of them)
    elided_last: int = 0  # the version of the last of those
    indexed_after: int = 0  # ``commands`` leaves out the commands up to this version (a snapshot stores none)

    def generation(self, seat: str) -> int:
        return self.generations.get(seat, 0)

    def command_version(self, principal: str, command_id: str) -> int | None:
        """The version the command's batch ended at (as far as this contest has folded it), if it ran after
        ``indexed_after`` (the store's event ids tell of older commands)."""
        first = self.commands.get(command_key(principal, command_id))
        if first is None or first > self.version:
            return None
        return min(self.batch_ends.get(first, first), self.version)

    def steps(self) -> tuple[Step, ...]:
        """The effective history: the steps that count after undo, redo and rewind (HistoryElided when this
        contest came from a snapshot and its history was not loaded again)."""
        if self.elided:
            raise HistoryElided(f"contest {self.id} at {self.version}: the history before the snapshot is not loaded")
        return tuple(self.history if self.effective < 0 else self.history[: self.effective])

    @property
    def held(self) -> int:
        """How many effective steps ``history`` holds (after the elided ones, if any)."""
        return len(self.history) if self.effective < 0 else self.effective


def command_key(principal: str, command_id: str) -> str:
    return f"{principal}\x1f{command_id}"


class CorruptLog(Exception):
    """The envelopes do not form a contest (not a Refused: stored events are never refused by rules)."""


class HistoryElided(Exception):
    """Undo, redo and rewind need the effective history, which a contest restored from a snapshot does not
    hold: fold the log again (``needs_history`` says when)."""


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
        history=[],
        redo=(),
        commands={command_key(envelope.actor.principal, envelope.command_id): 1},
        effective=0,
        lineage=[1],
    )


def _evolve(ruleset: Ruleset[S], rules: S, declared: dict[str, Declared], event: Any) -> tuple[S, dict[str, Declared]]:
    kind = type(event)  # the event's own class (see ``_NOT_STEPS``)
    if kind is Declared:
        return rules, {**declared, event.participant: event}
    if kind is Revealed:
        return ruleset.evolve(rules, event), {}
    return ruleset.evolve(rules, event), declared


def _refold(ruleset: Ruleset[S], contest: Contest[S], steps: Iterable[Step]) -> tuple[S, dict[str, Declared]]:
    rules = ruleset.initial(contest.created.setup, contest.created.seats)
    declared: dict[str, Declared] = {}
    for step in steps:
        rules, declared = _evolve(ruleset, rules, declared, step.event)
    return rules, declared


def _checkpoints(steps: Iterable[Step]) -> tuple[int | None, int | None]:
    at: int | None = None
    before: int | None = None
    for step in steps:
        if step.checkpoint:
            at, before = step.version, at
    return at, before


def _rebuilt(contest: Contest[S], steps: tuple[Step, ...], **changes: Any) -> Contest[S]:
    """The contest with ``steps`` as its effective history (after its elided ones, if any), in containers
    of its own (a new lineage)."""
    at, before = _checkpoints_of(contest, steps)
    commands, batch_ends = _own_commands(contest)
    return msgspec.structs.replace(
        contest,
        history=list(steps),
        effective=len(steps),
        commands=commands,
        batch_ends=batch_ends,
        checkpoint_at=at,
        checkpoint_before=before,
        lineage=[contest.version],
        **changes,
    )


def _checkpoints_of(contest: Contest[Any], steps: Iterable[Step]) -> tuple[int | None, int | None]:
    """The checkpoints of ``contest`` with ``steps`` as its effective history: found among the steps, or, when
    they follow elided ones, the checkpoints tracked as events came (they may be among those)."""
    if contest.elided:
        return contest.checkpoint_at, contest.checkpoint_before
    return _checkpoints(steps)


def restored(contest: Contest[S]) -> Contest[S]:
    """A contest decoded from a snapshot, the first of its lineage (its containers, fresh from the
    decoder, are its own already: nothing is copied)."""
    count = contest.held
    history = contest.history if count == len(contest.history) else contest.history[:count]
    at, before = _checkpoints_of(contest, history)
    return msgspec.structs.replace(
        contest, history=history, effective=count, checkpoint_at=at, checkpoint_before=before, lineage=[contest.version]
    )


def _cut(ruleset: Ruleset[S], contest: Contest[S], to_version: int) -> Contest[S]:
    steps = contest.steps()
    kept = tuple(s for s in steps if s.version <= to_version)
    removed = tuple(s for s in steps if s.version > to_version)
    rules, declared = _refold(ruleset, contest, kept)
    return _rebuilt(contest, kept, rules=rules, declared=declared, redo=(*contest.redo, removed))


def _own_commands(contest: Contest[Any]) -> tuple[dict[str, int], dict[int, int]]:
    """Copies of the command index as far as this contest goes."""
    version = contest.version
    commands = {k: v for k, v in contest.commands.items() if v <= version}
    batch_ends = {first: min(last, version) for first, last in contest.batch_ends.items() if first < version}
    return commands, batch_ends


def _owned(contest: Contest[S], version: int) -> tuple[list[Step], dict[str, int], dict[int, int], list[int]]:
    """The containers to fold the next event into: the shared ones when ``contest`` is its lineage's
    newest, else copies of its own part (a new lineage)."""
    if contest.lineage and contest.lineage[0] == contest.version and contest.effective == len(contest.history):
        contest.lineage[0] = version
        return contest.history, contest.commands, contest.batch_ends, contest.lineage
    commands, batch_ends = _own_commands(contest)
    return contest.history[: contest.effective], commands, batch_ends, [version]


_NOT_STEPS: frozenset[type] = frozenset({Undone, Rewound, Redone, Concluded, SeatReissued})
"""Events that are not steps of the effective history, looked up by the event's own class (why: see
``server.engine.timeline.ENGINE_EVENTS``)."""


def apply(ruleset: Ruleset[S], contest: Contest[S], envelope: Envelope) -> Contest[S]:
    """Fold one stored envelope. Never refuses: stored events are facts."""
    if envelope.version != contest.version + 1 or envelope.prev_hash != contest.head_hash:
        raise CorruptLog(f"event {envelope.version} does not follow event {contest.version}")
    if contest.effective < 0:
        contest = restored(contest)
    key = command_key(envelope.actor.principal, envelope.command_id)
    event = envelope.event
    if type(event) is ContestCreated:
        raise CorruptLog(f"event {envelope.version}: a second contest.created")
    history, commands, batch_ends, lineage = _owned(contest, envelope.version)
    first = commands.setdefault(key, envelope.version)
    if first != envelope.version:
        batch_ends[first] = envelope.version  # the batch goes on (older contests clamp it to their version)
    if type(event) not in _NOT_STEPS:  # the common case, in one copy of the (small) struct
        rules, declared = _evolve(ruleset, contest.rules, contest.declared, event)
        step = Step(
            envelope.version, cast("Declared | Revealed | RulesetEvent", event), envelope.batch_end, envelope.checkpoint
        )
        history.append(step)
        at, before = contest.checkpoint_at, contest.checkpoint_before
        if step.checkpoint:
            at, before = step.version, at
        return msgspec.structs.replace(
            contest,
            version=envelope.version,
            head_hash=envelope.hash,
            history=history,
            commands=commands,
            batch_ends=batch_ends,
            lineage=lineage,
            rules=rules,
            declared=declared,
            effective=len(history),
            checkpoint_at=at,
            checkpoint_before=before,
            redo=(),
        )
    contest = msgspec.structs.replace(
        contest,
        version=envelope.version,
        head_hash=envelope.hash,
        history=history,
        commands=commands,
        batch_ends=batch_ends,
        lineage=lineage,
    )
    match event:
        case Undone() | Rewound():
            return _cut(ruleset, contest, event.to_version)
        case Redone():
            restored_steps = contest.redo[-1]
            rules, declared = contest.rules, contest.declared
            for step in restored_steps:
                rules, declared = _evolve(ruleset, rules, declared, step.event)
            return _rebuilt(
                contest, (*contest.steps(), *restored_steps), rules=rules, declared=declared, redo=contest.redo[:-1]
            )
        case Concluded():
            return msgspec.structs.replace(contest, concluded=event, rules=ruleset.concluded(contest.rules))
        case SeatReissued():
            return msgspec.structs.replace(contest, generations={**contest.generations, event.seat: event.generation})
        case _:  # a step: folded above
            raise AssertionError(f"event {envelope.version} is a step")


def fold(ruleset: Ruleset[S], envelopes: Iterable[Envelope], contest: Contest[S] | None = None) -> Contest[S]:
    """The contest after ``envelopes``, starting from ``contest`` (a snapshot) or from nothing."""
    for envelope in envelopes:
        contest = begin(ruleset, envelope) if contest is None else apply(ruleset, contest, envelope)
    if contest is None:
        raise CorruptLog("no events")
    return contest


def last_effective(contest: Contest[Any]) -> int:
    count = contest.held
    if count:
        return contest.history[count - 1].version
    return contest.elided_last if contest.elided else 1


_NEED_HISTORY = (Undone, Rewound, Redone)


def needs_history(contest: Contest[Any], envelopes: Iterable[Envelope]) -> bool:
    """Whether folding ``envelopes`` onto ``contest`` needs the history its snapshot left out."""
    return contest.elided > 0 and any(isinstance(e.event, _NEED_HISTORY) for e in envelopes)


def undo_target(contest: Contest[Any]) -> int | None:
    """The previous checkpoint before the effective head, if any (tracked as events arrive)."""
    if contest.effective < 0:
        contest = restored(contest)
    if contest.checkpoint_at is not None and contest.checkpoint_at == last_effective(contest):
        return contest.checkpoint_before
    return contest.checkpoint_at


def rewind_targets(contest: Contest[Any]) -> list[int]:
    """Versions the GM may rewind to: the ends of effective batches before the head."""
    head = last_effective(contest)
    return [s.version for s in contest.steps() if s.batch_end and s.version < head]


def trimmed(contest: Contest[S]) -> Contest[S]:
    """What a snapshot stores: the rule state and the small indexes, but neither the effective history
    (counted in ``elided``: undo, redo and rewind load it again from the log, see ``needs_history``) nor the
    command index (``indexed_after``: the log's event ids tell of the commands that ran before it). Both
    grow with the contest: storing them made every snapshot cost in proportion to the contest's length."""
    count = contest.held
    return msgspec.structs.replace(
        contest,
        history=[],
        effective=0,
        elided=contest.elided + count,
        elided_last=last_effective(contest) if contest.elided + count else 0,
        commands={},
        batch_ends={},
        indexed_after=contest.version,
        lineage=[contest.version],
    )
