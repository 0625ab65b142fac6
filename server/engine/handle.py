"""The engine's decision: a command against a contest becomes sealed envelopes, or is refused.

Generic over rulesets: it owns roles, sealed declarations, undo / redo / rewind and the conclusion, and
hands everything else to the ruleset's ``decide``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, get_args

import msgspec

from protocol import errors
from protocol.common import AUDITOR, SPECTATOR, Actor
from protocol.errors import Refused
from protocol.events import (
    CloseDeclarations,
    Command,
    Conclude,
    Concluded,
    ContestCreated,
    CreateContest,
    Declare,
    Declared,
    Envelope,
    Event,
    Redo,
    Redone,
    ReissueSeat,
    Revealed,
    RevealEntry,
    Rewind,
    Rewound,
    SeatReissued,
    Undo,
    Undone,
)
from server.engine.chain import GENESIS, sealed
from server.engine.commitment import commit
from server.engine.contest import Contest, rewind_targets, undo_target
from server.engine.ruleset import Context, Ruleset

S = TypeVar("S")


@dataclass(frozen=True)
class Pending:
    """An event decided but not yet stored, and who may see it (None: everyone)."""

    event: Event
    visible_to: list[str] | None = None


def event_id(actor: Actor, command_id: str, index: int) -> str:
    """Deterministic, so a retried command produces the same ids and the store acknowledges it once."""
    digest = hashlib.sha256(f"{actor.principal}\x1f{command_id}".encode()).hexdigest()[:24]
    return f"{digest}-{index}"


def envelopes(
    ruleset: Ruleset[Any],
    contest_id: str,
    after_version: int,
    prev_hash: str,
    pending: Sequence[Pending],
    actor: Actor,
    command_id: str,
    now: str,
) -> list[Envelope]:
    """Number, chain and seal a decided batch."""
    is_checkpoint = any(type(p.event) not in _NEVER_CHECKPOINTS and ruleset.is_checkpoint(p.event) for p in pending)
    out: list[Envelope] = []
    for i, p in enumerate(pending):
        last = i == len(pending) - 1
        envelope = sealed(
            Envelope(
                contest=contest_id,
                version=after_version + 1 + i,
                event_id=event_id(actor, command_id, i),
                command_id=command_id,
                actor=actor,
                at=now,
                visible_to=p.visible_to,
                batch_end=last,
                checkpoint=last and is_checkpoint,
                event=p.event,
                prev_hash=prev_hash,
            )
        )
        prev_hash = envelope.hash
        out.append(envelope)
    return out


def create(ruleset: Ruleset[Any], contest_id: str, request: CreateContest, seed_hash: str | None) -> list[Pending]:
    """The opening batch of a contest (validated by the ruleset's ``initial``)."""
    if request.dice == "server" and seed_hash is None:
        raise ValueError("server dice need a seed")
    gms = [s for s in request.seats if s.role == "gm"]
    if not gms:
        raise Refused(errors.BAD_SETUP, "seats: a contest needs at least one GM seat")
    ids = [s.id for s in request.seats]
    if len(set(ids)) != len(ids):
        raise Refused(errors.BAD_SETUP, "seats: seat ids must be unique")
    if not isinstance(request.setup, ruleset.setup_type):
        raise Refused(errors.FOREIGN, f"setup: a {ruleset.name} contest needs a {_tag(ruleset.setup_type)} setup")
    ruleset.check_limits(request.setup)
    state = ruleset.initial(request.setup, request.seats)
    created = ContestCreated(
        ruleset=ruleset.name,
        title=request.title,
        setup=request.setup,
        seats=request.seats,
        dice=request.dice,
        seed_hash=seed_hash if request.dice == "server" else None,
        talk=request.talk,
    )
    return [Pending(created), *(Pending(e) for e in ruleset.start(state))]


def first_envelopes(
    ruleset: Ruleset[Any],
    contest_id: str,
    pending: Sequence[Pending],
    actor: Actor,
    command_id: str,
    now: str,
) -> list[Envelope]:
    return envelopes(ruleset, contest_id, 0, GENESIS, pending, actor, command_id, now)


def decide(ruleset: Ruleset[S], contest: Contest[S], command: Command, ctx: Context) -> list[Pending]:
    """What the command changes, as pending events; raises Refused with a stable code."""
    if contest.concluded is not None and not (isinstance(command, ReissueSeat) and command.seat == AUDITOR):
        # Auditing is what a concluded contest is for: its GM may still issue an auditor link.
        raise Refused(errors.CONTEST_OVER, "the contest has been concluded")
    role = ctx.actor.role
    if role not in ("gm", "player"):
        raise Refused(errors.FORBIDDEN, f"a {role} may watch but not act")
    if type(command) not in _ENGINE_COMMANDS:
        if not _one_of(command, ruleset.command_type):
            raise Refused(errors.FOREIGN, f"type: {_tag(type(command))} is not a command of {ruleset.name}")
        return [Pending(e) for e in ruleset.decide(contest.rules, command, ctx)]
    match command:
        case Declare():
            return _declare(ruleset, contest, command, ctx)
        case CloseDeclarations():
            _gm_only(ctx, "close a declaration window")
            window = ruleset.window(contest.rules)
            if window is None:
                raise Refused(errors.NO_WINDOW, "no declaration window is open")
            return [Pending(_reveal(contest, window.id, closed_by_gm=True))]
        case Undo():
            _gm_only(ctx, "undo")
            target = undo_target(contest)
            if target is None:
                raise Refused(errors.NOTHING_TO_UNDO, "nothing to undo: this is the contest's first checkpoint")
            return [Pending(Undone(to_version=target, removed=_after(contest, target)))]
        case Rewind():
            _gm_only(ctx, "rewind")
            if command.to_version not in rewind_targets(contest):
                raise Refused(
                    errors.BAD_REWIND,
                    f"to_version: {command.to_version} is not the end of an effective command before the head",
                )
            return [Pending(Rewound(to_version=command.to_version, removed=_after(contest, command.to_version)))]
        case Redo():
            _gm_only(ctx, "redo")
            if not contest.redo:
                raise Refused(errors.NOTHING_TO_REDO, "nothing to redo: nothing was undone since the last change")
            return [Pending(Redone(restored=[s.version for s in contest.redo[-1]]))]
        case Conclude():
            _gm_only(ctx, "conclude the contest")
            return [Pending(Concluded(seed=ctx.dice.revealed_seed()))]
        case ReissueSeat():
            _gm_only(ctx, "re-issue an invitation")
            players = {s.id for s in contest.created.seats if s.role == "player"}
            if command.seat not in players | {SPECTATOR, AUDITOR}:
                raise Refused(
                    errors.NO_SUCH_SEAT,
                    f"seat: {command.seat!r} is not a player seat of this contest, {SPECTATOR} or {AUDITOR}",
                )
            return [Pending(SeatReissued(seat=command.seat, generation=contest.generation(command.seat) + 1))]
        case _:  # a ruleset's command: decided above
            raise AssertionError(f"{_tag(type(command))} is not a command of the engine")


_ENGINE_COMMANDS: frozenset[type] = frozenset({Declare, CloseDeclarations, Undo, Rewind, Redo, Conclude, ReissueSeat})
"""The commands the engine decides itself, looked up by the command's own class (why: see
``server.engine.timeline.ENGINE_EVENTS``)."""
_NEVER_CHECKPOINTS: frozenset[type] = frozenset({ContestCreated, Declared})


@functools.cache
def _members(kind: Any) -> frozenset[Any]:
    """The classes of a union (of a ruleset's commands or declarations), or the one class."""
    return frozenset(get_args(kind)) or frozenset({kind})


def _one_of(value: object, kind: Any) -> bool:
    """``isinstance(value, kind)``, with the cheap look-up first."""
    return type(value) in _members(kind) or isinstance(value, kind)


def _tag(struct: type[Any]) -> str:
    config = getattr(struct, "__struct_config__", None)
    return str(config.tag) if config is not None else struct.__name__


def _gm_only(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(errors.FORBIDDEN, f"only a GM may {what}")


def _after(contest: Contest[Any], version: int) -> list[int]:
    return [s.version for s in contest.steps() if s.version > version]


def _declare(ruleset: Ruleset[S], contest: Contest[S], command: Declare, ctx: Context) -> list[Pending]:
    window = ruleset.window(contest.rules)
    if window is None:
        raise Refused(errors.NO_WINDOW, "no declaration window is open")
    if command.participant not in window.expected:
        raise Refused(errors.NOT_EXPECTED, f"participant: {command.participant!r} is not expected to declare")
    if not ctx.may_act_for(command.participant):
        raise Refused(errors.NOT_YOUR_SEAT, f"participant: you do not control {command.participant!r}")
    if not _one_of(command.payload, ruleset.declaration_type):
        raise Refused(errors.FOREIGN, f"payload: {_tag(type(command.payload))} is not a declaration of {ruleset.name}")
    ruleset.check_declaration(contest.rules, command.participant, command.payload, ctx)
    salt = ctx.salt
    if not salt:
        raise AssertionError("a declaration needs a fresh salt")
    declared = Declared(
        window=window.id,
        participant=command.participant,
        commitment=commit(salt, command.payload),
        payload=command.payload,
        salt=salt,
    )
    out = [Pending(declared, visible_to=[ctx.actor.principal])]
    current = {p: d for p, d in contest.declared.items() if d.window == window.id}
    current[command.participant] = declared
    if all(p in current for p in window.expected):
        with_new = _with_declared(contest, current)
        out.append(Pending(_reveal(with_new, window.id, closed_by_gm=False)))
    return out


def _with_declared(contest: Contest[S], declared: dict[str, Declared]) -> Contest[S]:
    return msgspec.structs.replace(contest, declared=declared)


def _reveal(contest: Contest[Any], window: str, closed_by_gm: bool) -> Revealed:
    entries = []
    for participant, d in contest.declared.items():
        if d.window != window or d.payload is None or d.salt is None:
            continue
        entries.append(RevealEntry(participant=participant, payload=d.payload, salt=d.salt, commitment=d.commitment))
    return Revealed(window=window, entries=entries, closed_by_gm=closed_by_gm)
