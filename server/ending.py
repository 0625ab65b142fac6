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
