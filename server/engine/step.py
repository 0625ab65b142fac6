"""The engine's one step: a command against a contest becomes one decision, with no I/O.

Time, dice and the declaration salt come in as values (``now``, ``seed``, ``salt``), so the same inputs
always decide the same. The service around it only loads, appends, retries and publishes: it reads the
decision and does the I/O each case asks for.

- ``Repeated``: the command id is in the contest's index; its first result answers it, nothing is decided.
- ``StaleLink``: the actor's link is of another invitation generation than the contest honours.
- ``NeedsHistory``: an undo, redo or rewind on a contest whose history a snapshot left out; step again
  with the history folded from the log.
- ``Decided``: the events, enveloped (numbered after the head, chained to its hash, sealed) and the contest
  folded through them.

A refusal raises ``Refused`` (a stable code and a sentence) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeAlias, TypeVar

import msgspec

from protocol.common import Actor
from protocol.events import Command, CreateContest, Declare, Envelope, Redo, Rewind, Undo
from server.engine import handle
from server.engine.contest import Contest, fold
from server.engine.dice import Roller
from server.engine.ruleset import Context, Ruleset

S = TypeVar("S")


class Repeated(msgspec.Struct, frozen=True):
    """The command ran before: its batch ended at ``version``."""

    version: int


class StaleLink(msgspec.Struct, frozen=True):
    """The actor's link is not of the invitation generation the contest honours (``honoured``): re-issued
    since, or newer than this contest has folded."""

    honoured: int


class NeedsHistory(msgspec.Struct, frozen=True):
    """Undo, redo and rewind need the effective history, which a contest restored from a snapshot does not
    hold: fold the log again and step once more."""


class Decided(msgspec.Struct, Generic[S], frozen=True, dict=True):
    """What the command appends, and the contest after it.

    ``after`` is folded when first read: a batch that loses its append to another writer is never folded,
    so the contest it was decided on stays the newest of its lineage (catching up from it appends in place
    instead of copying its history)."""

    ruleset: Ruleset[S]
    before: Contest[S] | None  # None for a contest's opening batch
    envelopes: Sequence[Envelope]

    @property
    def version(self) -> int:
        """The version the batch ends at."""
        return self.envelopes[-1].version

    @property
    def after(self) -> Contest[S]:
        return self.states[-1]

    @property
    def states(self) -> Sequence[Contest[S]]:
        """The contest after each of the batch's events, in order (the last is ``after``): a feed of this
        process publishes the batch from them without folding it again."""
        # Kept in the instance's ``__dict__`` (msgspec's place for private runtime state), as
        # ``functools.cached_property`` would, without the lock it takes on Python 3.11 for every command.
        memo = self.__dict__
        states: list[Contest[S]] | None = memo.get("states")
        if states is None:
            states = memo["states"] = []
            contest = self.before
            for envelope in self.envelopes:
                contest = fold(self.ruleset, (envelope,), contest)
                states.append(contest)
        return states


Decision: TypeAlias = Repeated | StaleLink | NeedsHistory | Decided[S]
"""What one step decides (a refusal is raised, not returned)."""

_NEED_HISTORY = (Undo, Redo, Rewind)
"""Commands that change the effective history: deciding and folding them needs it whole."""


def draws_salt(command: Command) -> bool:
    """Whether the command's step needs a fresh ``salt``: only a declaration commits to anything."""
    return type(command) is Declare


def step(
    ruleset: Ruleset[S],
    contest: Contest[S],
    actor: Actor,
    command_id: str,
    command: Command,
    *,
    generation: int | None = None,
    now: str,
    seed: bytes | None,
    salt: str = "",
) -> Decision[S]:
    """Decide ``command``, sent by ``actor`` as ``command_id``, against ``contest``; raises Refused.

    ``generation``: the invitation generation of the actor's link, when it came with one. ``now`` stamps the
    events; ``seed`` is the contest's secret dice seed (None for physical dice); ``salt`` is fresh random
    hex for a declaration's commitment (see ``draws_salt``)."""
    seen = contest.command_version(actor.principal, command_id)
    if seen is not None:
        return Repeated(seen)
    if generation is not None and (honoured := contest.generation(actor.principal)) != generation:
        return StaleLink(honoured)
    if contest.elided and isinstance(command, _NEED_HISTORY):
        return NeedsHistory()
    version = contest.version + 1
    ctx = Context(
        actor=actor,
        seats=contest.created.seats,
        now=now,
        version=version,
        dice=Roller(contest.created.dice, seed, version),
        salt=salt,
    )
    pending = handle.decide(ruleset, contest, command, ctx)
    envelopes = handle.envelopes(
        ruleset, contest.id, contest.version, contest.head_hash, pending, actor, command_id, now
    )
    return Decided(ruleset, contest, envelopes)


def opening(
    ruleset: Ruleset[S],
    contest_id: str,
    request: CreateContest,
    actor: Actor,
    command_id: str,
    *,
    now: str,
    seed_hash: str | None,
) -> Decided[S]:
    """A contest's first batch (``contest.created`` and what the ruleset opens with); raises Refused on a
    bad setup. ``seed_hash``: the sha256 of the secret dice seed, for server dice."""
    pending = handle.create(ruleset, contest_id, request, seed_hash)
    return Decided(ruleset, None, handle.first_envelopes(ruleset, contest_id, pending, actor, command_id, now))
