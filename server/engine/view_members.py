"""A ruleset's view made member by member, so that views can follow events (``Ruleset.touches``, ``follow``).

Each member of the view's struct is made by one function of the rule state. A ``shared`` member is the same for
every sight (the map, the score). An ``own`` member differs by sight: its function takes the state and returns
a function of the viewer, having worked out first what every sight shares in it. ``reads`` names the
attributes of the state each member is made from.

Rule states are immutable, and ``evolve`` replaces only the attributes an event changes: an attribute that is
the same object before and after an event did not change, and a member that reads none of the attributes that
changed needs no building again. So what an event touches follows from what each member reads. A member that
reads an attribute ``reads`` does not name is kept when it should be built again: the conformance suite finds
it (the views followed differ from the views built whole).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec
from msgspec.structs import astuple

from server.engine.ruleset import Viewer

S = TypeVar("S", bound=msgspec.Struct)
V = TypeVar("V", bound=msgspec.Struct)

Own = Callable[[Viewer], Any]


@dataclass(frozen=True)
class ViewMembers(Generic[S, V]):
    """How a ruleset's view (``view_type``) is made from its state (``state_type``), member by member."""

    state_type: type[S]
    view_type: type[V]
    shared: Mapping[str, Callable[[S], Any]]
    own: Mapping[str, Callable[[S], Own]]
    reads: Mapping[str, tuple[str, ...]]
    # Each attribute some member reads: its place among the state's fields, and the members that read it.
    _readers: list[tuple[int, frozenset[str]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        members = set(self.view_type.__struct_fields__)
        made = [*self.shared, *self.own]
        if sorted(made) != sorted(members) or set(self.reads) != members:
            raise ValueError(f"{self.view_type.__name__}: each member is made once and says what it reads")
        attributes = set(self.state_type.__struct_fields__)
        unknown = {a for read in self.reads.values() for a in read} - attributes
        if unknown:
            raise ValueError(f"{self.view_type.__name__} reads {sorted(unknown)}, not in {self.state_type.__name__}")
        readers = {a: frozenset(m for m, read in self.reads.items() if a in read) for a in attributes}
        places = {a: i for i, a in enumerate(self.state_type.__struct_fields__)}
        object.__setattr__(self, "_readers", [(places[a], found) for a, found in readers.items() if found])

    def touches(self, before: S, after: S, event: object) -> frozenset[str]:
        """The members that read an attribute of the state the event replaced."""
        touched: set[str] = set()
        old, new = astuple(before), astuple(after)
        for place, readers in self._readers:
            if old[place] is not new[place]:
                touched |= readers
        return frozenset(touched)

    def view(self, state: S, viewer: Viewer) -> V:
        return self.views(state, [viewer])[0]

    def views(self, state: S, viewers: Sequence[Viewer]) -> list[V]:
        """Each viewer's view, built whole; what every sight shares is worked out once."""
        if not viewers:
            return []
        shared = {member: make(state) for member, make in self.shared.items()}
        if not self.own:  # one view for every sight
            return [self.view_type(**shared)] * len(viewers)
        own = [(member, make(state)) for member, make in self.own.items()]
        return [self.view_type(**shared, **{member: make(viewer) for member, make in own}) for viewer in viewers]

    def follow(self, state: S, viewers: Sequence[Viewer], kept: Sequence[V], touched: frozenset[str]) -> list[V]:
        """Each viewer's view, its ``touched`` members built again and the others kept from its earlier view."""
        shared = {member: make(state) for member, make in self.shared.items() if member in touched}
        if not self.own:  # one view for every sight (each sight's earlier view is equal to the first's)
            return [msgspec.structs.replace(kept[0], **shared)] * len(kept) if kept else []
        own = [(member, make(state)) for member, make in self.own.items() if member in touched]
        return [
            msgspec.structs.replace(earlier, **shared, **{member: make(viewer) for member, make in own})
            for earlier, viewer in zip(kept, viewers, strict=True)
        ]
