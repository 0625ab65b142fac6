"""What follows a change of the tallies: contestants taken out or back, the sequence decided or resumed."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import scored as s
from server.rules.scored.evolve import evolve
from server.rules.scored.points import DEFEAT_AT, FOLLOWER_ROUND_LIMIT, SECONDARY_LIMIT, outcome_degree
from server.rules.scored.state import Member, ScoredState


def after(state: ScoredState, events: Sequence[s.Event]) -> ScoredState:
    for event in events:
        state = evolve(state, event)
    return state


def limit(member: Member) -> int:
    return SECONDARY_LIMIT if member.role == "secondary" else DEFEAT_AT


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
    """Each main contestant's result against the opponent it last met in a round (else the first main
    contestant of the other side), by the difference between the two tallies (§5.2.2)."""
    result: list[s.Outcome] = []
    mains = [m for m in state.members.values() if m.main and m.present]
    for member in mains:
        opponent_id = state.last_opponent.get(member.id)
        if opponent_id is None or not state.members[opponent_id].main:
            opponent_id = next(m.id for m in mains if m.side != member.side)
        against = state.rp(member.id)
        scored_for = state.rp(opponent_id)
        difference = scored_for - against
        result.append(
            s.Outcome(
                contestant=member.id,
                opponent=opponent_id,
                rp_against=against,
                rp_for=scored_for,
                difference=difference,
                degree=outcome_degree(difference),
                victory=member.side == winner,
            )
        )
    return result
