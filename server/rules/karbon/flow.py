"""What follows by itself once the table has acted: a side with nothing to stack ends its test, an ended
test starts the next round, a full victory track concludes the contest (with the Fortune rule)."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rulesets import karbon as k
from server.rules.karbon.dice import STACK
from server.rules.karbon.evolve import evolve
from server.rules.karbon.state import KarbonState, Running


def after(state: KarbonState, events: Sequence[k.Event]) -> KarbonState:
    for event in events:
        state = evolve(state, event)
    return state


def settle(state: KarbonState, events: Sequence[k.Event]) -> list[k.Event]:
    """``events`` and whatever follows from them by the rules alone."""
    out = list(events)
    state = after(state, events)
    while True:
        following = _next(state)
        if not following:
            return out
        out.extend(following)
        state = after(state, following)


def _next(state: KarbonState) -> list[k.Event]:
    contest = state.contest
    if contest is None or not contest.drawn or contest.waiting:
        return []
    if len(contest.track) >= contest.consequence:
        return conclude(state, contest)
    if not contest.rolled:
        return []
    idle = [side for side in contest.stacking if contest.chips[side] == 0]
    if idle:
        return [k.TestEnded(side=side) for side in idle]
    if not contest.stacking:
        return [k.RoundStarted(round=contest.round + 1)]
    return []


def onto_stack(side: k.Side, chips: int, contest: Running, why: str) -> list[k.Event]:
    """Chips placed on a stack one by one: each time it reaches five it pays out and empties, and the chips
    beyond start the next stack, whatever filled the track. Once the victory track has no slot left for
    another mark the stack stops at four (a fifth would pay out a mark the track has no room for); chips
    beyond that are not placed (see ``room``)."""
    out: list[k.Event] = []
    payout: k.Payout = "break" if side == "agent" else "glitch"
    stack, slots = contest.stacks[side], contest.consequence - len(contest.track)
    chips = min(chips, room(stack, slots))
    while chips > 0:
        placed = min(chips, STACK - stack)
        out.append(k.ChipsChanged(side=side, pile="stack", delta=placed, why=why))
        chips -= placed
        stack += placed
        if stack == STACK:
            out.append(k.StackPaidOut(side=side, payout=payout))
            stack, slots = 0, slots - 1
    return out


def room(stack: int, slots: int) -> int:
    """How many chips a stack holding ``stack`` takes with ``slots`` free on the victory track: five a slot
    (the first slot's payout needs only what the stack lacks), then four more on the next stack."""
    if slots <= 0:
        return max(0, STACK - 1 - stack)
    return (STACK - stack) + STACK * (slots - 1) + (STACK - 1)


def placed(events: list[k.Event]) -> int:
    """How many chips these events put on a stack."""
    return sum(e.delta for e in events if isinstance(e, k.ChipsChanged) and e.pile == "stack")


def conclude(state: KarbonState, contest: Running) -> list[k.Event]:
    wins = contest.track.count("X")
    losses = contest.track.count("O")
    outcome: k.Outcome = "won" if wins > losses else "lost" if losses > wins else "unclear"
    fortune = state.fortune
    if fortune == 0:
        fortune = state.full_fortune + (1 if outcome == "won" else 0)
    hands = state.ids("agent") + state.ids("narrator")
    out: list[k.Event] = [
        k.ContestConcluded(
            contest=contest.number,
            wins=wins,
            losses=losses,
            outcome=outcome,
            fortune_before=state.fortune,
            fortune=fortune,
        )
    ]
    if hands:
        out.append(k.DiceMoved(dice=hands, to=state.hands_after, why="the contest is over"))
    return out
