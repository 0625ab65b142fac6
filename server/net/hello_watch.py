"""The connections of one server that have not said hello yet, each told when its ``hello_timeout`` has passed.

One timer serves them all, never one per connection: every connection waits the same time, so the one that came
first is the first due, and the watch keeps them in the order they came. A connection that says hello (or ends)
leaves the watch at once, and an idle crowd that has said hello keeps nothing here.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Protocol


class Awaited(Protocol):
    def no_hello(self) -> None:
        """The hello timeout has passed without a hello."""
        ...


class HelloWatch:
    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._due: OrderedDict[Awaited, float] = OrderedDict()  # in the order they came: the order they are due
        self._timer: asyncio.TimerHandle | None = None

    def __len__(self) -> int:
        return len(self._due)

    def watch(self, connection: Awaited) -> None:
        loop = asyncio.get_running_loop()
        self._due[connection] = loop.time() + self._timeout
        if self._timer is None:
            self._timer = loop.call_at(self._due[connection], self._check)

    def heard(self, connection: Awaited) -> None:
        """The connection said hello, or ended."""
        self._due.pop(connection, None)

    def _check(self) -> None:
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self._due:
            connection, due = next(iter(self._due.items()))
            if due > now:
                self._timer = loop.call_at(due, self._check)
                return
            del self._due[connection]
            connection.no_hello()
