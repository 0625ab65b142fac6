"""Join a contest from an invitation link or a token: ``table = await join(link)``.

The contest, the role and the seat come from the token's claims; the server from the link (or
``server=``). The returned table's client resumes by itself, with backoff, when the connection drops."""

from __future__ import annotations

from clients.python.client import DEFAULT_TIMEOUT, AgonClient
from clients.python.links import BadLink, Invitation, parse
from clients.python.rulesets.contingency import Contingency
from clients.python.rulesets.extended import Extended
from clients.python.rulesets.herowars import Herowars
from clients.python.rulesets.karbon import Karbon
from clients.python.rulesets.scored import Scored
from clients.python.table import Table

HELPERS: dict[str, type[Table]] = {
    "extended": Extended,
    "herowars": Herowars,
    "scored": Scored,
    "karbon": Karbon,
    "contingency": Contingency,
}
"""The typed helper of each ruleset; a ruleset without one gets the engine's commands (``Table``)."""


async def join(link: str, *, server: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> Table:
    """Connect, follow the token's contest, and return the typed table for its ruleset."""
    invitation = parse(link, server)
    return await join_invitation(invitation, timeout=timeout)


async def join_invitation(invitation: Invitation, *, timeout: float = DEFAULT_TIMEOUT) -> Table:
    if invitation.server is None:
        raise BadLink("a bare token names no server: pass server='ws://HOST:PORT/ws'")
    client = await AgonClient.connect(invitation.server, resume=True, timeout=timeout, contest=invitation.contest)
    try:
        mirror = await client.follow(invitation.contest, invitation.token, timeout=timeout)
    except BaseException:
        await client.close()
        raise
    ruleset = str((mirror.doc or {}).get("ruleset", ""))
    return HELPERS.get(ruleset, Table)(client, invitation.contest)
