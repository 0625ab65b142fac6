"""Human-readable lines for the scored sequence's events and sealed tactics (notices, replays).

Lines name contestants by the names their setup gave them (``names``). The texts the rules stored with ids in
them (a resolved contest's result) are named as they are read, so no stored event changes."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import scored as s
from server.engine.names import NO_NAMES, Names, called, named_text

_KIND = {"round": "round", "assist": "assist", "engage": "engagement", "parting_shot": "parting shot"}
_TACTIC = {"none": "no special tactic", "gambit": "a risky gambit", "defensive": "a defensive response"}
_OUT = {"tally": "their tally", "round": "3 RP in one round", "engaged": "an engagement they lost"}


def describe_tactic(tactic: s.Tactic) -> str:
    parts = [_TACTIC[tactic.tactic]]
    if tactic.action:
        parts.append(f"“{tactic.action}”")
    if tactic.ability is not None:
        parts.append(f"with {tactic.ability} {tactic.rating or ''}".rstrip())
    return ", ".join(parts)


def _party(party: s.Party, names: Names = NO_NAMES) -> str:
    who = "the resistance" if party.contestant is None else called(names, party.contestant)
    return f"{who} ({party.rating}) rolled {party.face}: {party.successes} success(es)"


def describe(event: s.Event | s.Tactic, names: Names = NO_NAMES) -> str:
    """The line for one event of the scored sequence, or for a sealed tactic, naming contestants by ``names``."""
    match event:
        case s.Tactic():
            return describe_tactic(event)
        case s.RoundStarted():
            initiative, responder = called(names, event.initiative), called(names, event.responder)
            return f"round {event.round}: {initiative} has the initiative against {responder}"
        case s.ContestRolled():
            target = f" for {called(names, event.target)}" if event.target else ""
            return f"{_KIND[event.kind]}{target}: {_party(event.first, names)}; {_party(event.second, names)}"
        case s.StoryPointSpent():
            return f"{called(names, event.contestant)} spends a story point: one more success"
        case s.StoryPointsKept():
            return f"{called(names, event.contestant)} lets the result stand"
        case s.ContestResolved():
            degree = f" (degree {event.degree})" if event.winner is not None else ""
            return f"{_KIND[event.kind]}{degree}: {named_text(event.result, names)}"
        case s.PointsShifted():
            contestant, follower = called(names, event.contestant), called(names, event.follower)
            return f"{contestant} shifts {event.points} RP to their follower {follower}"
        case s.Joined():
            contestant, comrade = called(names, event.contestant), called(names, event.comrade)
            return f"{contestant} joins the sequence, sharing {comrade}'s tally"
        case s.PointsAdjusted():
            sign = "+" if event.delta > 0 else ""
            return (
                f"the GM adjusts the RP against {called(names, event.contestant)} by {sign}{event.delta}: "
                f"{event.reason}"
            )
        case s.TakenOut():
            return f"{called(names, event.contestant)} is out of the sequence ({_OUT[event.reason]})"
        case s.Returned():
            return f"{called(names, event.contestant)} is back in the sequence"
        case s.SequenceDecided():
            results = "; ".join(
                f"{called(names, o.contestant)}: {'victory' if o.victory else 'defeat'} of degree {o.degree} "
                f"({o.rp_for}–{o.rp_against})"
                for o in event.outcomes
            )
            return f"{event.winner} wins the sequence over {event.loser}: {results}"
        case s.SequenceResumed():
            return "the sequence goes on"
        case _:
            assert_never(event)
