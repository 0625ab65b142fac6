"""Human-readable lines for a Karbon scene's events and the sealed risk (notices, replays), and the names they
show: the agent by its name, the narrator as "the narrator", dice by their kind and face."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import karbon as k
from server.engine.names import NO_NAMES, Names
from server.rules.karbon.state import KarbonState


def names(state: KarbonState) -> Names:
    """The agent's name for its id and for the agent's side (``agent`` in the events)."""
    if not state.name.strip():
        return NO_NAMES
    shown = {"agent": state.name}
    if state.agent != "narrator":  # the narrator's side keeps its own words
        shown[state.agent] = state.name
    return shown


def _side(names: Names, side: k.Side) -> str:
    """A side as people say it: the agent by its name, else "the agent"; "the narrator"."""
    return names.get(side) or f"the {side}"


def _whose(names: Names, side: k.Side) -> str:
    return f"{_side(names, side)}'s"


_PLACES: dict[str, str] = {"pool": "the main pool", "reserve": "the reserve", "spent": "the spent dice"}


def _place(names: Names, place: k.Place) -> str:
    if place == "agent" or place == "narrator":
        return f"{_whose(names, place)} hand"
    return _PLACES[place]


def _kind(die: str) -> str:
    """A die as people name it, by its sides: ``d6-4`` and the reserve's ``r6-1`` are both a d6."""
    return "d" + die.partition("-")[0][1:]


def _dice(dice: list[str]) -> str:
    """How many dice of each kind, as a table counts them: "3 d6 and a d10"."""
    counts: dict[str, int] = {}
    for die in dice:
        counts[_kind(die)] = counts.get(_kind(die), 0) + 1
    said = [f"a {kind}" if n == 1 else f"{n} {kind}" for kind, n in counts.items()]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said) or "no dice"


def _rolled(dice: list[k.RolledDie]) -> str:
    """Each die by its kind and the face it shows: "d6 showing 2, d10 showing 9"."""
    return ", ".join(f"{_kind(d.die)} showing {d.face}" for d in dice) or "no dice"


def describe(event: k.Event | k.Risk, names: Names = NO_NAMES) -> str:
    match event:
        case k.Risk():
            move = f": “{event.move}”" if event.move else ""
            return ("all on the line" if event.all_in else "no risk") + move
        case k.SceneStarted():
            return f"the scene begins: {len(event.pool)} dice in the main pool, {len(event.reserve)} in the reserve"
        case k.ContestStarted():
            sudden = "sudden death " if event.sudden_death else ""
            return (
                f"{sudden}contest {event.contest}: “{event.goal}” with {event.ability} {event.level}; "
                f"challenge {event.challenge}, {event.consequence} win(s) needed, peril {event.peril}"
            )
        case k.HandsDrawn():
            return (
                f"hands drawn: {_side(names, 'agent')} takes {_dice(event.agent)}; "
                f"{_side(names, 'narrator')} takes {_dice(event.narrator)}"
            )
        case k.DiceMoved():
            return f"{_dice(event.dice)} to {_place(names, event.to)} ({event.why})"
        case k.ChallengeChanged():
            return f"the challenge is now {event.challenge}" + (f": {event.reason}" if event.reason else "")
        case k.PerilChanged():
            return f"the peril is now {event.peril}" + (f": {event.reason}" if event.reason else "")
        case k.RoundStarted():
            return f"round {event.round} begins"
        case k.RoundRolled():
            winner = "a tie in hits" if event.winner is None else f"{_side(names, event.winner)} wins"
            opening = "" if event.opening is None else f"; {_side(names, event.opening)} offers an opening"
            extra = ""
            if event.risk:
                extra += f"; risk {' '.join(map(str, event.risk))}"
            if event.peril:
                extra += f"; peril {' '.join(map(str, event.peril))}"
            return (
                f"round {event.round}: {_side(names, 'agent')} {_rolled(event.agent)} ({event.agent_hits} hits), "
                f"{_side(names, 'narrator')} {_rolled(event.narrator)} ({event.narrator_hits} hits): "
                f"{winner}{opening}{extra}"
            )
        case k.ChipsChanged():
            who, count = _side(names, event.side), abs(event.delta)
            if event.pile == "stack":
                moved = "puts" if event.delta > 0 else "takes"
                onto = "on" if event.delta > 0 else "off"
                return f"{who} {moved} {count} chip(s) {onto} the stack ({event.why})"
            return f"{who} {'gains' if event.delta > 0 else 'loses'} {count} chip(s) in hand ({event.why})"
        case k.StackPaidOut():
            mark = "a win (X)" if event.payout == "break" else "a loss (O)"
            return f"{_whose(names, event.side)} stack reaches five: a {event.payout}, marking {mark}"
        case k.TestEnded():
            return f"{_side(names, event.side)} stacks no more this test"
        case k.BreakChosen():
            option = f" ({event.option})" if event.option else ""
            return f"the break: {event.choice}{option}"
        case k.GlitchChosen():
            option = f" ({event.option})" if event.option else ""
            return f"the glitch: {event.choice}{option}"
        case k.NarratorOptionChosen():
            label = f": {event.label}" if event.label else ""
            return f"the narrator picks {event.option}{label}"
        case k.WinErased():
            return "a win (X) is erased from the victory track"
        case k.ContestConcluded():
            fortune = (
                "" if event.fortune == event.fortune_before else f"; Fortune {event.fortune_before} → {event.fortune}"
            )
            return f"contest {event.contest} is over: {event.outcome} ({event.wins} X, {event.losses} O){fortune}"
        case k.BackedOut():
            reason = f": {event.reason}" if event.reason else ""
            return f"{_side(names, event.by)} backs out of contest {event.contest}, which ends with no outcome{reason}"
        case k.AftermathChosen():
            suffered = "a Blackout" if event.aftermath == "blackout" else "a Moment of Madness"
            return f"{_side(names, 'agent')} suffers {suffered}"
        case k.FortuneAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts {_whose(names, 'agent')} Fortune by {sign}{event.delta}: {event.reason}"
        case _:
            assert_never(event)
