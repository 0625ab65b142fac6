"""What follows a change of the tallies: contestants taken out or back, the sequence decided or resumed."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import scored as s
from server.rules.scored.effect import limit
from server.rules.scored.evolve import evolve
from server.rules.scored.points import FOLLOWER_ROUND_LIMIT, outcome_degree
from server.rules.scored.state import ScoredState


def after(state: ScoredState, events: Sequence[s.Event]) -> ScoredState:
    for event in events:
        state = evolve(state, event)
    return state


def settle(
    state: ScoredState, changes: Sequence[s.Event], lodged: dict[str, int], in_round: bool = False
) -> list[s.Event]:
    """The events that follow ``changes`` (already decided, not yet in ``state``).

    ``lodged``: RP the changes lodged against each tally, for the record of what took a contestant out and
    for followers acting as contestants, who are out at 3 in one round."""
    now = after(state, changes)
    out: list[s.Event] = []
    for member in now.members.values():
        if not member.present:
            continue
        tally = now.tallies[member.tally]
        this_round = lodged.get(member.tally, 0)
        if member.out is None:
            if tally >= limit(member):
                out.append(s.TakenOut(contestant=member.id, reason="tally", last_round=this_round))
            elif in_round and member.role == "contestant" and this_round >= FOLLOWER_ROUND_LIMIT:
                out.append(s.TakenOut(contestant=member.id, reason="round", last_round=this_round))
        elif member.out == "tally" and tally < limit(member):
            out.append(s.Returned(contestant=member.id))
    now = after(now, out)
    return [*out, *_decision(now)]


def _decision(state: ScoredState) -> list[s.Event]:
    beaten = [
        side for side in state.sides() if not any(m.main and m.active for m in state.members.values() if m.side == side)
    ]
    if beaten:
        loser = beaten[0]
        winner = state.other_side(loser)
        decided = s.SequenceDecided(winner=winner, loser=loser, outcomes=outcomes(state, winner))
        # decided now, or decided again with new figures (a parting shot worsened the defeat)
        return [decided] if decided != state.outcome else []
    if not beaten and state.outcome is not None:
        return [s.SequenceResumed()]
    return []


def outcomes(state: ScoredState, winner: str) -> list[s.Outcome]:
    """Each main contestant's result by the difference between its tally and its opponent's (§5.2.2).

    One taken out by its tally has lost (§5.2), whichever side wins: it is measured against the opponent it
    lost to, with the RP against that opponent when it went out (what others lodge on that opponent later is
    their own fight); a parting shot at it still worsens its defeat. One still in is measured against the
    opponent it last met in a round (else the first main contestant of the other side), and wins with its
    side."""
    result: list[s.Outcome] = []
    for member in (m for m in state.members.values() if m.main and m.present):
        fall = state.fallen.get(member.id) if member.out is not None else None
        opponent = fall.opponent if fall is not None else state.opponent(member.id)
        against = state.rp(member.id)
        scored_for = fall.rp_for if fall is not None else state.rp(opponent)
        difference = scored_for - against
        result.append(
            s.Outcome(
                contestant=member.id,
                opponent=opponent,
                rp_against=against,
                rp_for=scored_for,
                difference=difference,
                degree=outcome_degree(difference),
                victory=member.out is None and member.side == winner,
            )
        )
    return result
