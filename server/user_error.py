"""A mistake the user of the command line can fix, raised anywhere below ``server.cli`` and printed by it."""

from __future__ import annotations

USAGE_ERROR = 2
"""The exit status of a command line that cannot be understood (argparse's own)."""


class UserError(Exception):
    """A mistake the user can fix: printed as ``agon <command>: <message>``, exit ``status``."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status
