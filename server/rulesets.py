"""The rulesets this server plays, registered explicitly. Rulesets never import each other."""

from __future__ import annotations

from typing import Any

from protocol import errors
from protocol.errors import Refused
from server.engine.ruleset import Ruleset
from server.rules.extended.ruleset import EXTENDED
from server.rules.herowars.ruleset import HEROWARS

ALL: list[Ruleset[Any]] = [EXTENDED, HEROWARS]
RULESETS: dict[str, Ruleset[Any]] = {r.name: r for r in ALL}


def ruleset(name: str) -> Ruleset[Any]:
    try:
        return RULESETS[name]
    except KeyError:
        raise Refused(errors.UNKNOWN_RULESET, f"ruleset: {name!r} is not one of {sorted(RULESETS)}") from None
