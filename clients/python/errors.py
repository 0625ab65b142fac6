"""Typed errors carrying the server's stable code: catch a family (``RuleRefusal``) or test ``.code``."""

from __future__ import annotations

from protocol.messages import Error


class Refusal(Exception):
    """The server answered with an error: a stable ``code`` (e.g. ``rules/bid_too_high``) and a message."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = error.code
        self.message = error.message


class ProtocolRefusal(Refusal):
    """``protocol/*``: the frame could not be read (a client bug)."""


class AuthRefusal(Refusal):
    """``auth/*``: the token is bad, expired, for another contest, or the seat may not do this."""


class RuleRefusal(Refusal):
    """``rules/*``, ``seal/*``, ``undo/*``, ``dice/*``: the ruleset or the engine refused the command."""


class ContestRefusal(Refusal):
    """``contest/*``: no such contest, it exists already, it is over, or its setup is bad."""


class RetryLater(Refusal):
    """``rate/*``, ``server/*``, ``store/*``: try again later (the client resumes by itself)."""


class Disconnected(Exception):
    """The connection closed before the answer arrived."""


_FAMILIES: dict[str, type[Refusal]] = {
    "protocol": ProtocolRefusal,
    "auth": AuthRefusal,
    "rules": RuleRefusal,
    "seal": RuleRefusal,
    "undo": RuleRefusal,
    "dice": RuleRefusal,
    "contest": ContestRefusal,
    "rate": RetryLater,
    "server": RetryLater,
    "store": RetryLater,
}


def refusal(error: Error) -> Refusal:
    """The typed exception for an ``error`` message (by the code's family, before the ``/``)."""
    family = error.code.partition("/")[0]
    return _FAMILIES.get(family, Refusal)(error)
