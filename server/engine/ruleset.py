"""The ruleset contract: a Decider made of pure functions. The engine knows rulesets only through this."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from protocol.common import Actor, DiceMode, Seat
from protocol.events import Revealed, RulesetEvent
from protocol.ops import Op
from server.engine.dice import Roller
from server.engine.names import NO_NAMES, Names

S = TypeVar("S")


class Viewer(msgspec.Struct, frozen=True):
    """Whose eyes a view is for. GMs and auditors see everything; a player sees what its seat may."""

    principal: str
    role: str
    contestants: frozenset[str] = frozenset()

    @property
    def omniscient(self) -> bool:
        return self.role in ("gm", "auditor")

    def controls(self, contestant: str) -> bool:
        return contestant in self.contestants


class Window(msgspec.Struct, frozen=True):
    """An open sealed-declaration window: its id and the participants expected to declare; ``doing`` says what
    each of them still has to do, for the table's "whose move" line (never what anyone declared)."""

    id: str
    expected: list[str]
    doing: str = "seal an intent"


class Wait(msgspec.Struct, frozen=True):
    """What a contest waits for, as its ruleset says: the contestants whose controllers must act (a player's
    seat, or the GM for a contestant no player controls), or the GM itself (``gm``: confirm, frame, resolve,
    conclude…), and ``doing``, a short verb phrase written for people ("roll exchange 3", "confirm the
    exchange"): it names things by their names, never by ids, and holds nothing any viewer may not see.

    ``either``: any one of them may act ("Ann or the GM"), where otherwise each of them must. ``hidden``: who is
    awaited is itself a secret (a hero point window that waits only for a hero point that matters): only the GM
    and the awaited contestants' controllers are told who; every other viewer reads "someone"."""

    doing: str
    contestants: tuple[str, ...] = ()
    gm: bool = False
    either: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class Context:
    """Everything a decision may depend on beyond the state: who, when, and the dice."""

    actor: Actor
    seats: Sequence[Seat]
    now: str
    version: int  # the version the decision's first event will get
    dice: Roller
    salt: str  # fresh random hex for a declaration's commitment (empty for other commands)

    def controlled_by(self, contestant: str) -> Seat | None:
        """The player seat that controls a contestant; None for one the GM runs."""
        for seat in self.seats:
            if seat.role == "player" and contestant in seat.contestants:
                return seat
        return None

    def may_act_for(self, contestant: str) -> bool:
        """A player acts for its own contestants; a GM for those no player controls."""
        seat = self.controlled_by(contestant)
        if self.actor.role == "gm":
            return seat is None
        return self.actor.role == "player" and seat is not None and seat.id == self.actor.principal

    @property
    def is_gm(self) -> bool:
        return self.actor.role == "gm"


@dataclass(frozen=True)
class Ruleset(Generic[S]):
    """A ruleset's pure functions. ``decide`` refuses (raises Refused); ``evolve`` accepts any stored event."""

    name: str
    state_type: type[S]
    setup_type: type[Any]
    # The engine hands a ruleset only its own setup, commands, declarations and events (its ``setup_type``,
    # ``command_type`` and ``declaration_type``), so those parameters are typed by each ruleset.
    initial: Callable[[Any, Sequence[Seat]], S]  # its setup; raises Refused on a bad setup
    start: Callable[[S], Sequence[RulesetEvent]]  # events that open the contest
    decide: Callable[[S, Any, Context], Sequence[RulesetEvent]]  # one of its commands
    evolve: Callable[[S, Any], S]  # one of its events, or a reveal of its declarations
    # a viewer's view; it may depend only on the viewer's sight (``server.engine.views.sight``: GM, auditor
    # or neither, and the contestants it controls), never on who the viewer is: one view serves a sight
    view: Callable[[S, Viewer], Any]
    outcome: Callable[[S], Any]
    window: Callable[[S], Window | None]
    check_declaration: Callable[[S, str, Any, Context], None]  # one of its declarations; raises Refused
    is_checkpoint: Callable[[Any], bool]  # a ruleset event or a reveal
    # a human-readable line for a ruleset event or a sealed payload, naming its ids by ``names`` (its ``names``
    # of the states around the event): people read names, never ids
    describe: Callable[[Any, Names], str]
    # what an event may show a viewer who may see the event: secrets in public events (its own events and
    # the reveal of its declarations) are removed here
    redact: Callable[[S, Any, Viewer], RulesetEvent | Revealed | None] = lambda s, e, v: e
    # the names shown for the ids in a state (contestants, zones, characters…): for lines written for people
    names: Callable[[S], Names] = lambda s: NO_NAMES
    # the ruleset's own commands and sealed declarations (unions of its types): the engine refuses others
    command_type: Any = object
    declaration_type: Any = object
    # the table limits a new contest's setup must keep (raises Refused, ``contest/bad_setup``): checked when it
    # is created, never when a stored contest is folded, so a contest created under wider limits still loads
    check_limits: Callable[[Any], None] = lambda setup: None
    # the state once the GM has concluded the contest (e.g. a phase that says it is over)
    concluded: Callable[[S], S] = lambda s: s
    # the patches that turn each viewer's view of the state before one of its events into its view of the state
    # after (one per viewer, in order), their paths under ``root`` (where the view sits in the contest's view),
    # written for the events common enough to be worth it; None (the default) for any other event, whose views
    # the engine diffs. A law of the conformance suite checks that every patch written turns the one view into
    # the other.
    # the views of several viewers at once, in order, equal to ``view`` of each (a law of the conformance suite):
    # a ruleset whose view has parts every sight shares (the order of play, the map, the score) works them out
    # once per state instead of once per sight. None (the default): ``view`` for each viewer
    views: Callable[[S, Sequence[Viewer]], list[Any]] | None = None
    view_patches: Callable[[S, S, Any, Sequence[Viewer], str], list[list[Op]] | None] = (
        lambda before, after, event, viewers, root: None
    )
    # the members of its view (attributes of the view's struct) that one of its events, or a reveal of its
    # declarations, may change, given the state before and after it; None (the default): any of them. With
    # ``follow`` it lets the engine keep each sight's view and build again only what an event touches
    touches: Callable[[S, S, Any], frozenset[str] | None] = lambda before, after, event: None
    # the views of several viewers of a state, in order, following their views of an earlier state (``kept``, in
    # the same order): the ``touched`` members are built again, every other member is kept from the earlier
    # view (the same object). A law of the conformance suite checks, for every event and batch of every
    # generated history, that the views followed equal the views built whole. None (the default): built whole
    follow: Callable[[S, Sequence[Viewer], Sequence[Any], frozenset[str]], list[Any]] | None = None
    # what the contest waits for now, and from whom (docs/rules/<name>.md, "What the table waits for"), given the
    # contest's dice mode (with physical dice the GM types in the faces unless the setup lets players): the
    # engine adds the open declaration window's participants who have not declared, names the seats, and shows
    # it in every view (``ContestView.waiting``); nothing while a window is open is the usual answer
    waiting: Callable[[S, DiceMode], Sequence[Wait]] = lambda state, dice: ()
