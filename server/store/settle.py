"""Handing a waiting caller its outcome, shared by the stores that answer appends from one place."""

from __future__ import annotations

import asyncio
from typing import TypeVar

T = TypeVar("T")


def settle(answer: asyncio.Future[T], outcome: T | Exception) -> None:
    """Raise ``outcome`` in the caller if it is an exception, else return it; nothing if the caller gave up."""
    if answer.done():
        return
    if isinstance(outcome, Exception):
        answer.set_exception(outcome)
    else:
        answer.set_result(outcome)
