"""``evolve`` for a Karbon scene: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from protocol.events import Revealed
from protocol.rulesets import karbon as k
from server.rules.karbon.dice import STACK
from server.rules.karbon.state import Die, KarbonState, Running, Waiting

replace = msgspec.structs.replace


def evolve(state: KarbonState, event: k.Event | Revealed) -> KarbonState:
    return BY_EVENT[type(event)](state, event)


def _scene_started(state: KarbonState, event: k.SceneStarted) -> KarbonState:
    dice = {d.id: Die(d.id, d.sides, "pool") for d in event.pool}
    dice.update({d.id: Die(d.id, d.sides, "reserve") for d in event.reserve})
    return replace(state, dice=dice)


def _contest_started(state: KarbonState, event: k.ContestStarted) -> KarbonState:
    running = Running(
        number=event.contest,
        goal=event.goal,
        ability=event.ability,
        level=event.level,
        challenge=event.challenge,
        consequence=event.consequence,
        peril=event.peril,
        sudden_death=event.sudden_death,
    )
    return replace(state, contest=running, contests=event.contest, last_roll=None)


def _hands_drawn(state: KarbonState, event: k.HandsDrawn) -> KarbonState:
    state = _moved(state, event.agent, "agent")
    state = _moved(state, event.narrator, "narrator")
    return _running(state, drawn=True)


def _dice_moved(state: KarbonState, event: k.DiceMoved) -> KarbonState:
    return _moved(state, event.dice, event.to)


def _challenge_changed(state: KarbonState, event: k.ChallengeChanged) -> KarbonState:
    return _running(state, challenge=event.challenge)


def _peril_changed(state: KarbonState, event: k.PerilChanged) -> KarbonState:
    return _running(state, peril=event.peril)


def _round_started(state: KarbonState, event: k.RoundStarted) -> KarbonState:
    return _running(state, round=event.round, all_in=None, rolled=False, stacking=[])


def _revealed(state: KarbonState, event: Revealed) -> KarbonState:
    risks = [e.payload for e in event.entries if isinstance(e.payload, k.Risk)]
    return _running(state, all_in=any(r.all_in for r in risks))


def _round_rolled(state: KarbonState, event: k.RoundRolled) -> KarbonState:
    stacking: list[k.Side] = [event.winner] if event.winner is not None else ["agent", "narrator"]
    return replace(_running(state, rolled=True, stacking=stacking), last_roll=event)


def _chips_changed(state: KarbonState, event: k.ChipsChanged) -> KarbonState:
    contest = _contest(state)
    pile = contest.chips if event.pile == "hand" else contest.stacks
    counts = {**pile, event.side: pile[event.side] + event.delta}
    return _running(state, **{"chips" if event.pile == "hand" else "stacks": counts})


def _stack_paid_out(state: KarbonState, event: k.StackPaidOut) -> KarbonState:
    contest = _contest(state)
    stacks = {**contest.stacks, event.side: contest.stacks[event.side] - STACK}
    mark: k.Mark = "X" if event.payout == "break" else "O"
    return _running(
        state,
        stacks=stacks,
        track=[*contest.track, mark],
        waiting=[*contest.waiting, Waiting(event.payout)],
    )


def _test_ended(state: KarbonState, event: k.TestEnded) -> KarbonState:
    return _running(state, stacking=[s for s in _contest(state).stacking if s != event.side])


def _break_chosen(state: KarbonState, event: k.BreakChosen) -> KarbonState:
    return _running(state, waiting=_contest(state).waiting[1:])


def _glitch_chosen(state: KarbonState, event: k.GlitchChosen) -> KarbonState:
    waiting = _contest(state).waiting
    if event.choice in ("hurt", "plans"):
        return _running(state, waiting=[Waiting("glitch", event.choice), *waiting[1:]])
    return _running(state, waiting=waiting[1:])


def _narrator_option_chosen(state: KarbonState, event: k.NarratorOptionChosen) -> KarbonState:
    state = _running(state, waiting=_contest(state).waiting[1:])
    if event.option == "injury":
        return replace(state, injuries=[*state.injuries, event.label])
    if event.option == "condition":
        return replace(state, conditions=[*state.conditions, event.label])
    return state


def _win_erased(state: KarbonState, event: k.WinErased) -> KarbonState:
    track = list(_contest(state).track)
    last_x = len(track) - 1 - track[::-1].index("X")
    return _running(state, track=track[:last_x] + track[last_x + 1 :])


def _contest_concluded(state: KarbonState, event: k.ContestConcluded) -> KarbonState:
    return replace(
        state,
        contest=None,
        previous=state.contest,
        last_outcome=event,
        fortune=event.fortune,
        aftermath_due=event.outcome == "lost" and event.fortune_before == 0,
    )


def _backed_out(state: KarbonState, event: k.BackedOut) -> KarbonState:
    return replace(state, contest=None)


def _aftermath_chosen(state: KarbonState, event: k.AftermathChosen) -> KarbonState:
    return replace(state, aftermaths=[*state.aftermaths, event.aftermath], aftermath_due=False)


def _fortune_adjusted(state: KarbonState, event: k.FortuneAdjusted) -> KarbonState:
    return replace(state, fortune=state.fortune + event.delta)


# Each event's own class picks its fold: a failed class pattern costs ~1000 instructions (events are final classes).
BY_EVENT: dict[type, Callable[[KarbonState, Any], KarbonState]] = {
    k.SceneStarted: _scene_started,
    k.ContestStarted: _contest_started,
    k.HandsDrawn: _hands_drawn,
    k.DiceMoved: _dice_moved,
    k.ChallengeChanged: _challenge_changed,
    k.PerilChanged: _peril_changed,
    k.RoundStarted: _round_started,
    Revealed: _revealed,
    k.RoundRolled: _round_rolled,
    k.ChipsChanged: _chips_changed,
    k.StackPaidOut: _stack_paid_out,
    k.TestEnded: _test_ended,
    k.BreakChosen: _break_chosen,
    k.GlitchChosen: _glitch_chosen,
    k.NarratorOptionChosen: _narrator_option_chosen,
    k.WinErased: _win_erased,
    k.ContestConcluded: _contest_concluded,
    k.BackedOut: _backed_out,
    k.AftermathChosen: _aftermath_chosen,
    k.FortuneAdjusted: _fortune_adjusted,
}


def _moved(state: KarbonState, dice: list[str], to: k.Place) -> KarbonState:
    moved = dict(state.dice)
    for die in dice:
        moved[die] = replace(moved[die], place=to)
    return replace(state, dice=moved)


def _contest(state: KarbonState) -> Running:
    assert state.contest is not None, "a contest event outside a contest"
    return state.contest


def _running(state: KarbonState, **changes: object) -> KarbonState:
    return replace(state, contest=replace(_contest(state), **changes))
