"""Out of file descriptors while accepting: one warning a second with a count, never a traceback per accept.

When ``accept()`` fails with EMFILE or ENFILE, asyncio's selector loop reports it through the loop's exception
handler ("socket.accept() out of system resource", with a traceback), once per connection waiting in the
backlog, stops listening for a second and schedules a retry per failure. This handler recognises those
reports and turns them into at most one warning a second (``AcceptTally``), naming the limit and how many
accepts failed; the retries left scheduled when the listening socket closes in the meantime are dropped.
Every other report goes to the handler that was there before (asyncio's default one).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
from typing import Any

from server.net.accept_tally import AcceptTally

log = logging.getLogger(__name__)

OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE})

Handler = Any  # asyncio's exception handler: (loop, context) -> object


def out_of_descriptors(context: dict[str, Any]) -> OSError | None:
    """The error of a report that the process (EMFILE) or the system (ENFILE) has no descriptor left."""
    error = context.get("exception")
    if isinstance(error, OSError) and error.errno in OUT_OF_DESCRIPTORS:
        return error
    return None


def stale_retry(context: dict[str, Any]) -> bool:
    """A retry of accepting, scheduled by a failed accept, that ran after its listening socket closed."""
    callback = getattr(context.get("handle"), "_callback", None)
    return getattr(callback, "__name__", "") == "_start_serving" and isinstance(
        context.get("exception"), (ValueError, OSError)
    )


class AcceptFailures:
    """The loop's exception handler while serving (``install``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, previous: Handler | None, interval: float = 1.0) -> None:
        self.loop = loop
        self.previous = previous
        self.tally = AcceptTally(interval)
        self._timer: asyncio.TimerHandle | None = None
        self._reason = ""

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = out_of_descriptors(context)
        if error is not None:
            self._reason = os.strerror(error.errno or errno.EMFILE)
            told = self.tally.failed(loop.time())
            if told is not None:
                self._warn(told)
            elif self._timer is None:
                self._timer = loop.call_later(self.tally.wait(loop.time()), self._flush)
            return
        if self.tally.total and stale_retry(context):
            return  # the socket it would listen on is closed: nothing is left to accept
        if self.previous is not None:
            self.previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def _flush(self) -> None:
        self._timer = None
        told = self.tally.due(self.loop.time())
        if told is not None:
            self._warn(told)
        elif self.tally.pending:
            self._timer = self.loop.call_later(self.tally.wait(self.loop.time()), self._flush)

    def _warn(self, told: int) -> None:
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        limit = "unlimited" if soft == resource.RLIM_INFINITY else str(soft)
        accepts = "accept" if told == 1 else "accepts"
        log.warning(
            "out of file descriptors (%s; open files limit %s): %d %s failed since the last warning, %d in all; "
            "accepting pauses a second at a time until descriptors are free (docs/deploy.md, Operating limits)",
            self._reason,
            limit,
            told,
            accepts,
            self.tally.total,
        )

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def install(loop: asyncio.AbstractEventLoop) -> AcceptFailures:
    """Make ``loop`` report failed accepts for want of descriptors at most once a second."""
    handler = AcceptFailures(loop, loop.get_exception_handler())
    loop.set_exception_handler(handler)
    return handler
