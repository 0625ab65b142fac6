"""Agon's Python client: ``table = await join(link)``, then ``table.view``, ``table.client.changes()`` and
the ruleset's typed commands (``await table.intent("aria", "lunge", bid=4)``). See docs/client.md."""

import logging

from clients.python.client import AgonClient
from clients.python.core import ClientCore
from clients.python.errors import (
    AuthRefusal,
    ContestRefusal,
    Disconnected,
    ProtocolRefusal,
    Refusal,
    RetryLater,
    RuleRefusal,
)
from clients.python.join import join
from clients.python.links import BadLink, Invitation, parse
from clients.python.mirror import ContestMirror
from clients.python.rulesets.contingency import Contingency
from clients.python.rulesets.extended import Extended
from clients.python.rulesets.herowars import Herowars
from clients.python.rulesets.karbon import Karbon
from clients.python.rulesets.scored import Scored
from clients.python.table import Table

# A library prints nothing of its own accord: its log lines (``clients.python``) go where the program's logging
# sends them, and nowhere when it configures none (the logging HOWTO's advice for libraries).
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AgonClient",
    "AuthRefusal",
    "BadLink",
    "ClientCore",
    "ContestMirror",
    "ContestRefusal",
    "Contingency",
    "Disconnected",
    "Extended",
    "Herowars",
    "Invitation",
    "Karbon",
    "ProtocolRefusal",
    "Refusal",
    "RetryLater",
    "RuleRefusal",
    "Scored",
    "Table",
    "join",
    "parse",
]
