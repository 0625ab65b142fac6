"""The conformance kit: what a ruleset supplies so the conformance suite can play it.

A registered ruleset ``<name>`` is played by the strategy module ``tests/conformance/strategies/<name>.py``,
which defines:

``setups() -> SearchStrategy[CreateContest]``
    Contests to open: the setup, the seats (at least one GM seat, and player seats naming the contestants
    they control) and the dice mode. The suite adds a spectator and plays every seat.

``commands(table: Table) -> SearchStrategy[Command]``
    One command for the contest as it stands: legal ones (so the contest moves on) and illegal ones (a bid
    out of range, an unknown contestant, a command out of phase). Sealed declarations are engine
    ``Declare`` commands with the ruleset's payload. The suite sends each command from the seats in a random
    order until one accepts it, so a command from the wrong seat is refused along the way; it adds undo,
    redo, rewind, closing a declaration window and concluding itself.

Optional:

``hidden(state, viewer: Viewer) -> Iterable[str]``
    JSON pointers into the viewer's view document (e.g. ``/rules/contestants/1/rating``) that must be
    null for this viewer in this state. The suite checks every view and every patch against them, and every
    event as shown to that viewer (what its notices are written from): the values at those pointers in the
    GM's view, and how much each moved, must not be in it (``tests/conformance/secrecy.py`` ``carried``).

``check_event(before, event, after) -> None``
    An invariant of one ruleset event (``before`` and ``after`` are the ruleset states around it); raise
    AssertionError when it breaks. Called for every ruleset event the suite stores.

``check_batch(before, events, after) -> None``
    A law of one command's whole batch of ruleset events (``before`` and ``after`` are the ruleset states
    around it), for what no single event shows (a chip that should have moved and did not). Called for
    every accepted command whose batch holds no engine event that replaces the state (undo, redo, rewind).

Sealed payloads are traced by their free text: put :func:`sealed_text` into a string field of every
declaration payload that has one; the suite checks that no viewer other than the author, the controller
and the GM ever receives it (view, patch or notice) before the reveal. The whole encoded payload is
checked too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, cast

from hypothesis import strategies as st

from protocol.common import DiceMode, Seat
from protocol.events import Command, CreateContest, RulesetEvent
from server.engine.ruleset import Viewer

SEALED = "sealed~"
"""The prefix of every traceable sealed string."""


@dataclass(frozen=True)
class Table:
    """What a strategy sees of the contest it draws a command for."""

    state: Any  # the ruleset's folded state
    seats: Sequence[Seat]
    dice: DiceMode
    version: int  # the contest's version now

    def players(self) -> list[Seat]:
        return [s for s in self.seats if s.role == "player"]


def sealed_text(table: Table, participant: str) -> str:
    """A free text unique to this declaration, which the suite can trace in what viewers receive."""
    return f"{SEALED}{table.version}~{participant}~"


@dataclass(frozen=True)
class Strategy:
    """A loaded strategy module."""

    name: str
    setups: Callable[[], st.SearchStrategy[CreateContest]]
    commands: Callable[[Table], st.SearchStrategy[Command]]
    hidden: Callable[[Any, Viewer], Iterable[str]]
    check_event: Callable[[Any, RulesetEvent, Any], None]
    check_batch: Callable[[Any, Sequence[RulesetEvent], Any], None]
    # the fields of an event that the rules make public whatever they hold (a loan's offer and its simple
    # contest): a hidden value equal to one of them by chance is not traced there
    public: Callable[[Any], frozenset[str]]


def _no_hidden(state: Any, viewer: Viewer) -> Iterable[str]:
    return ()


def _no_check(before: Any, event: RulesetEvent, after: Any) -> None:
    return None


def _no_batch_check(before: Any, events: Sequence[RulesetEvent], after: Any) -> None:
    return None


def _nothing_public(event: Any) -> frozenset[str]:
    return frozenset()


def load(name: str) -> Strategy:
    """The strategy module of ruleset ``name``; ModuleNotFoundError or AttributeError when it is missing."""
    module: ModuleType = importlib.import_module(f"tests.conformance.strategies.{name}")
    return Strategy(
        name=name,
        setups=cast(Callable[[], st.SearchStrategy[CreateContest]], module.setups),
        commands=cast(Callable[[Table], st.SearchStrategy[Command]], module.commands),
        hidden=cast(Callable[[Any, Viewer], Iterable[str]], getattr(module, "hidden", _no_hidden)),
        check_event=cast(Callable[[Any, RulesetEvent, Any], None], getattr(module, "check_event", _no_check)),
        check_batch=cast(
            Callable[[Any, Sequence[RulesetEvent], Any], None], getattr(module, "check_batch", _no_batch_check)
        ),
        public=cast(Callable[[Any], frozenset[str]], getattr(module, "public", _nothing_public)),
    )
