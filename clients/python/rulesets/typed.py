"""Typed commands of a ruleset as methods: ``roll = Sends(x.Roll)`` makes ``await table.roll(faces=[3, 12])``.

A method takes exactly the fields of its command type (typed, checked by mypy, shown by ``help()``), builds
the command and sends it as this seat; its docstring is the command type's, from the rules. ``Declares``
does the same for the ruleset's sealed declaration, with the participant first."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, overload

from protocol.messages import Ack

if TYPE_CHECKING:
    from clients.python.table import Table

P = ParamSpec("P")


class _Typed(Generic[P]):
    def __init__(self, kind: Callable[P, Any], doc: str | None = None, *, gm: bool | None = None) -> None:
        self.kind = kind
        self.name = ""
        self.__doc__ = inspect.cleandoc(doc or kind.__doc__ or f"Send {kind.__name__}.")
        self.gm_only = self.__doc__.startswith("GM") if gm is None else gm
        """Only the GM may send it (the rules' text says so first; ``gm=`` where it does not)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def _method(self, call: Callable[..., Awaitable[Ack]], first: list[inspect.Parameter]) -> Any:
        call.__name__ = call.__qualname__ = self.name
        call.__doc__ = self.__doc__
        fields = list(inspect.signature(self.kind).parameters.values())
        call.__signature__ = inspect.Signature([*first, *fields], return_annotation=Ack)  # type: ignore[attr-defined]
        return call


class Sends(_Typed[P]):
    """A ruleset command as a method of the table: its fields are the method's parameters."""

    @overload
    def __get__(self, table: None, owner: type) -> Sends[P]: ...

    @overload
    def __get__(self, table: Table, owner: type) -> Callable[P, Awaitable[Ack]]: ...

    def __get__(self, table: Table | None, owner: type) -> Sends[P] | Callable[P, Awaitable[Ack]]:
        if table is None:
            return self
        seat = table

        async def send(*args: P.args, **kwargs: P.kwargs) -> Ack:
            return await seat.send(self.kind(*args, **kwargs))

        method: Callable[P, Awaitable[Ack]] = self._method(send, [])
        return method


class Declares(_Typed[P]):
    """The ruleset's sealed declaration as a method: the participant, then the declaration's fields."""

    @overload
    def __get__(self, table: None, owner: type) -> Declares[P]: ...

    @overload
    def __get__(self, table: Table, owner: type) -> Callable[Concatenate[str, P], Awaitable[Ack]]: ...

    def __get__(self, table: Table | None, owner: type) -> Declares[P] | Callable[Concatenate[str, P], Awaitable[Ack]]:
        if table is None:
            return self
        seat = table

        async def declare(participant: str, /, *args: P.args, **kwargs: P.kwargs) -> Ack:
            return await seat.declare(participant, self.kind(*args, **kwargs))

        who = inspect.Parameter("participant", inspect.Parameter.POSITIONAL_ONLY, annotation=str)
        method: Callable[Concatenate[str, P], Awaitable[Ack]] = self._method(declare, [who])
        return method


def commands(helper: type) -> list[Sends[Any]]:
    """The command methods of a helper class, in the order they are defined (its bases' first)."""
    found: dict[str, Sends[Any]] = {}
    for cls in reversed(helper.__mro__):
        found.update((name, value) for name, value in vars(cls).items() if isinstance(value, Sends))
    return list(found.values())


def declaration(helper: type) -> Declares[Any] | None:
    """The declaration method of a helper class, if its ruleset has one."""
    for cls in helper.__mro__:
        for value in vars(cls).values():
            if isinstance(value, Declares):
                return value
    return None
