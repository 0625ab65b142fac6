"""The open-files limit of ``agon serve``: every connection is a file descriptor.

A process starts with the soft limit its shell or service manager gave it (often 1,024, sometimes 256),
while the hard limit is usually far higher. ``agon serve`` raises the soft limit to the hard one at start
and logs the figure, so an operator sees how many sockets the process may hold; a higher hard limit is the
operator's to give (``ulimit -Hn``, systemd's ``LimitNOFILE``, Docker's ``--ulimit nofile``).
"""

from __future__ import annotations

import logging
import resource
from dataclasses import dataclass

log = logging.getLogger(__name__)

CEILING = 1 << 20
"""The soft limit asked for when the hard limit is unlimited (macOS): no kernel grants an unlimited soft one."""


@dataclass(frozen=True)
class OpenFiles:
    before: int  # the soft limit the process started with
    now: int  # the soft limit it has
    hard: int  # RLIM_INFINITY when unlimited


def wanted(soft: int, hard: int) -> int:
    """The soft limit to ask for: the hard limit (or ``CEILING`` when that is unlimited), never lower than
    ``soft``."""
    if soft == resource.RLIM_INFINITY:
        return soft
    target = CEILING if hard == resource.RLIM_INFINITY else hard
    return max(soft, target)


def raise_open_files() -> OpenFiles:
    """Raise the soft ``RLIMIT_NOFILE`` as far as the hard limit allows (``describe`` says what it did)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted(soft, hard)
    now = soft
    if target != soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            now = target
        except (ValueError, OSError) as error:
            log.warning("open files limit: could not raise %s to %s (%s)", soft, target, error)
    return OpenFiles(before=soft, now=now, hard=hard)


def describe(limit: OpenFiles) -> str:
    shown = "unlimited" if limit.hard == resource.RLIM_INFINITY else str(limit.hard)
    if limit.now != limit.before:
        return f"open files limit: {limit.now} (raised from {limit.before}; hard limit {shown})"
    return f"open files limit: {limit.now} (hard limit {shown})"
