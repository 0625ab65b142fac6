"""``evolve`` for a Karbon scene: fold one stored event into the state. Never refuses."""

from __future__ import annotations

from typing import assert_never

import msgspec

from protocol.events import Revealed
from protocol.rulesets import karbon as k
from server.rules.karbon.dice import STACK
from server.rules.karbon.state import Die, KarbonState, Running, Waiting

replace = msgspec.structs.replace


def evolve(state: KarbonState, event: k.Event | Revealed) -> KarbonState:
    match event:
        case k.SceneStarted():
            dice = {d.id: Die(d.id, d.sides, "pool") for d in event.pool}
            dice.update({d.id: Die(d.id, d.sides, "reserve") for d in event.reserve})
            return replace(state, dice=dice)
        case k.ContestStarted():
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
        case k.HandsDrawn():
            state = _moved(state, event.agent, "agent")
            state = _moved(state, event.narrator, "narrator")
            return _running(state, drawn=True)
        case k.DiceMoved():
            return _moved(state, event.dice, event.to)
        case k.ChallengeChanged():
            return _running(state, challenge=event.challenge)
        case k.PerilChanged():
            return _running(state, peril=event.peril)
        case k.RoundStarted():
            return _running(state, round=event.round, all_in=None, rolled=False, stacking=[])
        case Revealed():
            risks = [e.payload for e in event.entries if isinstance(e.payload, k.Risk)]
            return _running(state, all_in=any(r.all_in for r in risks))
        case k.RoundRolled():
            stacking: list[k.Side] = [event.winner] if event.winner is not None else ["agent", "narrator"]
            return replace(_running(state, rolled=True, stacking=stacking), last_roll=event)
        case k.ChipsChanged():
            contest = _contest(state)
            pile = contest.chips if event.pile == "hand" else contest.stacks
            counts = {**pile, event.side: pile[event.side] + event.delta}
            return _running(state, **{"chips" if event.pile == "hand" else "stacks": counts})
        case k.StackPaidOut():
            contest = _contest(state)
            stacks = {**contest.stacks, event.side: contest.stacks[event.side] - STACK}
            mark: k.Mark = "X" if event.payout == "break" else "O"
            return _running(
                state,
                stacks=stacks,
                track=[*contest.track, mark],
                waiting=[*contest.waiting, Waiting(event.payout)],
            )
        case k.TestEnded():
            return _running(state, stacking=[s for s in _contest(state).stacking if s != event.side])
        case k.BreakChosen():
            return _running(state, waiting=_contest(state).waiting[1:])
        case k.GlitchChosen():
            waiting = _contest(state).waiting
            if event.choice in ("hurt", "plans"):
                return _running(state, waiting=[Waiting("glitch", event.choice), *waiting[1:]])
            return _running(state, waiting=waiting[1:])
        case k.NarratorOptionChosen():
            state = _running(state, waiting=_contest(state).waiting[1:])
            if event.option == "injury":
                return replace(state, injuries=[*state.injuries, event.label])
            if event.option == "condition":
                return replace(state, conditions=[*state.conditions, event.label])
            return state
        case k.WinErased():
            track = list(_contest(state).track)
            last_x = len(track) - 1 - track[::-1].index("X")
            return _running(state, track=track[:last_x] + track[last_x + 1 :])
        case k.ContestConcluded():
            return replace(
                state,
                contest=None,
                previous=state.contest,
                last_outcome=event,
                fortune=event.fortune,
                aftermath_due=event.outcome == "lost" and event.fortune_before == 0,
            )
        case k.BackedOut():
            return replace(state, contest=None)
        case k.AftermathChosen():
            return replace(state, aftermaths=[*state.aftermaths, event.aftermath], aftermath_due=False)
        case k.FortuneAdjusted():
            return replace(state, fortune=state.fortune + event.delta)
        case _:
            assert_never(event)


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
