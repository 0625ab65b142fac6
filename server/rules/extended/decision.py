"""How an extended contest is decided: the side with the last undefeated contestant wins (seed 000 §5.3.2.5).

Each contestant's own outcome comes from table 5.3.3.1: a defeated contestant's from its own final AP, a
victor's from the final AP of the last opponent it engaged. A side's overall outcome is the second-best of
its contestants' outcomes when it won, the second-worst when it lost, or the only one when it has one; a
side that won against one opponent has the outcome against that opponent (by its final AP), and a side that
lost with one contestant has that contestant's. Never across the line: a winning side's is a victory, a
losing side's a defeat.
"""

from __future__ import annotations

from typing import Literal

from protocol.rulesets import extended as x
from server.rules.extended.state import ExtendedState, Fighter
from server.rules.questworlds.outcome import Degree, outcome_for

_ORDER = {"victory": 1, "defeat": -1}


def rank(outcome: x.ContestantOutcome) -> int:
    """Complete victory 4 … Marginal victory 1, Marginal defeat -1 … Complete defeat -4."""
    assert outcome.level is not None
    return _ORDER[outcome.result] * (Degree[outcome.level.upper()] + 1)


def individual(state: ExtendedState, fighter: Fighter) -> x.ContestantOutcome:
    if fighter.withdrawn:
        return x.ContestantOutcome(fighter.id, fighter.side, "withdrew", None, None, None, None)
    if fighter.ap <= 0:
        lost = outcome_for(fighter.ap)
        return x.ContestantOutcome(
            fighter.id, fighter.side, "defeat", lost.degree.label, lost.consequence.value, None, fighter.ap
        )
    opponent = state.fighters.get(fighter.last_opponent or "")
    if opponent is None or opponent.ap > 0 or opponent.withdrawn:
        return x.ContestantOutcome(fighter.id, fighter.side, "none", None, None, None, None)
    won = outcome_for(opponent.ap)
    return x.ContestantOutcome(
        fighter.id, fighter.side, "victory", won.degree.label, None, won.benefit.value, opponent.ap
    )


def side_outcome(
    side: str, won: bool, outcomes: list[x.ContestantOutcome], against: list[x.ContestantOutcome]
) -> x.SideOutcome:
    """The side's overall outcome from its contestants' ``outcomes`` and its opponents' (``against``).

    A side that won against a single defeated opponent has the outcome against it: a victory by that
    opponent's final AP, credited to the contestant whose victory it is (every victory of the side is over
    that opponent). Otherwise the second-best (``won``) or second-worst of the side's outcomes, or the only
    one (a losing side of one contestant has its own), on the side of the line the side is: a side that
    gains the prize has a victory, a side that lost a defeat. When the picked outcome is across the line (a
    winner's fallen comrade, a loser's victor), the side has the mildest of its own: a Marginal victory or a
    Marginal defeat, nobody's in particular."""
    if won and len(against) == 1 and against[0].result == "defeat":
        victor = next((o.contestant for o in outcomes if o.result == "victory"), None)
        return x.SideOutcome(side=side, result="victory", level=against[0].level, from_contestant=victor)
    ranked = sorted((o for o in outcomes if o.result in ("victory", "defeat")), key=rank, reverse=won)
    if not ranked:
        return x.SideOutcome(side=side, result="none", level=None, from_contestant=None)
    picked = ranked[1] if len(ranked) > 1 else ranked[0]
    result: Literal["victory", "defeat"] = "victory" if won else "defeat"
    if picked.result != result:
        return x.SideOutcome(side=side, result=result, level=Degree.MARGINAL.label, from_contestant=None)
    return x.SideOutcome(side=side, result=result, level=picked.level, from_contestant=picked.contestant)


def over(state: ExtendedState) -> bool:
    """At most one side still has a contestant in the contest."""
    return len({f.side for f in state.fighters.values() if f.in_contest}) <= 1


def decided(state: ExtendedState) -> x.ContestDecided:
    standing = {f.side for f in state.fighters.values() if f.in_contest}
    winning_side = next(iter(standing)) if len(standing) == 1 else None
    outcomes = [individual(state, f) for f in state.fighters.values()]
    sides = list(dict.fromkeys(f.side for f in state.fighters.values()))
    by_side = [
        side_outcome(
            side, side == winning_side, [o for o in outcomes if o.side == side], [o for o in outcomes if o.side != side]
        )
        for side in sides
    ]
    winner, loser, loser_ap, level, consequence, benefit = _headline(state, winning_side)
    return x.ContestDecided(
        winner=winner,
        loser=loser,
        loser_ap=loser_ap,
        level=level,
        consequence=consequence,
        benefit=benefit,
        winning_side=winning_side,
        outcomes=outcomes,
        sides=by_side,
    )


def _headline(state: ExtendedState, winning_side: str | None) -> tuple[str | None, str | None, int, str, str, str]:
    """A duel's winner, loser and the loser's outcome; a group's winning side (its sides say the rest)."""
    if state.group or winning_side is None:
        lowest = min((f.ap for f in state.fighters.values() if f.ap <= 0), default=0)
        if winning_side is not None:
            return None, None, lowest, f"side {winning_side} wins", "", ""
        return None, None, lowest, "Both defeated" if not state.group else "No side left", "", ""
    winner = next(f for f in state.fighters.values() if f.in_contest)
    loser = state.fighters[state.opponent(winner.id)]
    if loser.withdrawn:
        return winner.id, loser.id, 0, "Withdrew", "", ""  # its AP stays its own: it was never beaten
    outcome = outcome_for(loser.ap)
    return winner.id, loser.id, loser.ap, outcome.degree.label, outcome.consequence.value, outcome.benefit.value
