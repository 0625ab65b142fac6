"""Hero points as the QuestWorlds rulesets show them: who holds one, and who may still spend one, is known to
few; the step after a roll must not tell the others.

After a roll with a player's contestant (a PC) in it, the exchange waits for answers. With the window
``always`` every PC in the exchange answers (let it stand, or spend a hero point) whether or not it holds one,
so the log and every view look the same to those who may not know. With ``when_it_matters`` only a PC that
holds a hero point that could change the result answers: faster, but whoever sees the exchange wait (or be
applied at once) learns who holds hero points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NoReturn, Protocol, TypeVar

import msgspec

from protocol.common import HeroPointWindow
from protocol.errors import Refused
from server.engine.ruleset import Viewer, Wait

NO_HERO_POINT = "rules/no_hero_point"
HERO_POINT_NO_EFFECT = "rules/hero_point_no_effect"
NOT_AWAITED = "rules/out_of_turn"
"""An answer from a PC the rolled exchange does not wait for: the rulesets' code for acting out of turn."""


def pending_for(eligible: Iterable[str], viewer: Viewer) -> list[str]:
    """The contestants who may still spend a hero point, as ``viewer`` may see them: that list tells who holds
    hero points, which only the GM and each contestant's controller may know."""
    return [c for c in eligible if viewer.omniscient or viewer.controls(c)]


def awaiting(window: HeroPointWindow, pcs: Iterable[str], answered: Iterable[str], eligible: list[str]) -> list[str]:
    """Whose answer the rolled exchange still waits for: with ``always`` every PC of the exchange that has not
    answered (``pcs``: the player-run contestants of an exchange where a hero point may be spent at all);
    with ``when_it_matters`` only those who may still spend one (``eligible``)."""
    if window == "when_it_matters":
        return list(eligible)
    done = set(answered)
    return [c for c in dict.fromkeys(pcs) if c not in done]


def awaiting_for(window: HeroPointWindow, waiting: list[str], viewer: Viewer) -> list[str]:
    """Whose answer the exchange waits for, as ``viewer`` may see it: public with ``always`` (it does not depend
    on hero points), as secret as the hero points themselves with ``when_it_matters``."""
    return list(waiting) if window == "always" else pending_for(waiting, viewer)


class Answered(Protocol):
    """What ``exchange_seen`` reads of a rolled exchange."""

    @property
    def eligible(self) -> list[str]: ...

    @property
    def waiting(self) -> list[str]: ...


E = TypeVar("E", bound=msgspec.Struct)


def exchange_seen(shared: E, rolled: Answered, window: HeroPointWindow) -> Callable[[Viewer], E]:
    """A rolled exchange's view as each viewer may see it: ``shared`` (what every sight sees of it) with who may
    still spend a hero point (``hero_points_pending``) and whose answer it waits for (``answers_pending``) as
    the viewer may see them."""
    return lambda viewer: msgspec.structs.replace(
        shared,
        hero_points_pending=pending_for(rolled.eligible, viewer),
        answers_pending=awaiting_for(window, rolled.waiting, viewer),
    )


ANSWER = "let the roll stand or spend a hero point"
"""What a rolled exchange waits for from each PC's player it waits for (the table's "whose move" line)."""


def answers(window: HeroPointWindow, waiting: list[str], doing: str = ANSWER) -> Wait:
    """The wait for the answers a rolled exchange waits for: who is awaited is public with ``always``, as
    secret as the hero points with ``when_it_matters`` (only the GM and each awaited PC's controller are told)."""
    return Wait(doing, tuple(waiting), hidden=window == "when_it_matters")


def refuse_answer(contestant: str, spend: bool, holds_one: bool) -> NoReturn:
    """An answer the rolled exchange does not wait for: a hero point that could change nothing (``holds_one``:
    it has one and has not answered yet), none to spend, or an answer given already or never asked."""
    if spend and holds_one:
        raise Refused(
            HERO_POINT_NO_EFFECT,
            f"contestant: a hero point cannot change this exchange's result for {contestant!r}",
        )
    if spend:
        raise Refused(NO_HERO_POINT, f"contestant: {contestant!r} has no hero point to spend now")
    raise Refused(NOT_AWAITED, f"contestant: this exchange waits for no answer from {contestant!r}")
