"""Human-readable lines for the scored sequence's events and sealed tactics (notices, replays)."""

from __future__ import annotations

from typing import assert_never

from protocol.rulesets import scored as s
from server.engine.names import NO_NAMES, Names

_KIND = {"round": "round", "assist": "assist", "engage": "engagement", "parting_shot": "parting shot"}
_TACTIC = {"none": "no special tactic", "gambit": "a risky gambit", "defensive": "a defensive response"}


def describe_tactic(tactic: s.Tactic) -> str:
    parts = [_TACTIC[tactic.tactic]]
    if tactic.action:
        parts.append(f"“{tactic.action}”")
    if tactic.ability is not None:
        parts.append(f"with {tactic.ability} {tactic.rating or ''}".rstrip())
    return ", ".join(parts)


def _party(party: s.Party) -> str:
    who = party.contestant or "the resistance"
    return f"{who} ({party.rating}) rolled {party.face}: {party.successes} success(es)"


def describe(event: s.Event | s.Tactic, names: Names = NO_NAMES) -> str:
    match event:
        case s.Tactic():
            return describe_tactic(event)
        case s.RoundStarted():
            return f"round {event.round}: {event.initiative} has the initiative against {event.responder}"
        case s.ContestRolled():
            target = f" for {event.target}" if event.target else ""
            return f"{_KIND[event.kind]}{target}: {_party(event.first)}; {_party(event.second)}"
        case s.StoryPointSpent():
            return f"{event.contestant} spends a story point: one more success"
        case s.StoryPointsKept():
            return f"{event.contestant} lets the result stand"
        case s.ContestResolved():
            degree = f" (degree {event.degree})" if event.winner is not None else ""
            return f"{_KIND[event.kind]}{degree}: {event.result}"
        case s.PointsShifted():
            return f"{event.contestant} shifts {event.points} RP to its follower {event.follower}"
        case s.Joined():
            return f"{event.contestant} joins the sequence, sharing {event.comrade}'s tally"
        case s.PointsAdjusted():
            sign = "+" if event.delta > 0 else ""
            return f"the GM adjusts the RP against {event.contestant} by {sign}{event.delta}: {event.reason}"
        case s.TakenOut():
            why = {"tally": "its tally", "round": "3 RP in one round", "engaged": "an engagement it lost"}[event.reason]
            return f"{event.contestant} is out of the sequence ({why})"
        case s.Returned():
            return f"{event.contestant} is back in the sequence"
        case s.SequenceDecided():
            results = "; ".join(
                f"{o.contestant}: {'victory' if o.victory else 'defeat'} of degree {o.degree} "
                f"({o.rp_for}–{o.rp_against})"
                for o in event.outcomes
            )
            return f"{event.winner} wins the sequence over {event.loser}: {results}"
        case s.SequenceResumed():
            return "the sequence goes on"
        case _:
            assert_never(event)
