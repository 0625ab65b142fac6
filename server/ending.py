"""Stopping a task for good."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def ended(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has ended, cancelling it again while it goes on: on Python 3.11 a
    cancellation that arrives as a timeout inside the task expires (``asyncio.timeout``, redis-py's reads) is
    taken for that timeout, and the task would carry on for good."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.1)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()


def stop_if_cancelled() -> None:
    """Raise the running task's cancellation if a library swallowed it, so a loop asked once to stop stops: on
    Python 3.11 ``asyncio.wait_for`` returns what it waited for when the cancellation arrives as that completes
    (redis-py waits so for every write to drain), and a tail or a listener would otherwise go on for good."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
