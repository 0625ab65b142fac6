"""What an extended contest waits for, and from whom (docs/rules/extended.md, "What the table waits for").

While the round's intents are sealed the engine says who still has to seal one; after the reveal a group round
waits for the GM to order it, then the contest waits for whoever's exchange comes next (its player, or the GM for
a contestant it runs; the GM when the faces of physical dice are the GM's to type), then for the answers of the PCs
in the rolled exchange (let the roll stand or spend a hero point), then for the GM (a group tie to rule on). A
victor with a parting shot the round waits for takes it or lets it pass; a decided contest waits for the GM to
conclude it.
"""

from __future__ import annotations

from protocol.common import DiceMode
from server.engine.ruleset import Wait
from server.rules.extended.state import ExtendedState
from server.rules.questworlds.hero_points import answers

CONCLUDE = "conclude the contest"


def waiting(state: ExtendedState, dice: DiceMode) -> list[Wait]:
    match state.phase:
        case "declaring" | "over":
            return []  # the engine names who still has to seal an intent; a concluded contest waits for nothing
        case "decided":
            return [Wait(CONCLUDE, gm=True)]
        case "rolled":
            exchange = state.exchange
            if exchange is not None and exchange.waiting:
                return [answers(state.hero_point_window, exchange.waiting)]
            number = exchange.number if exchange is not None else state.exchanges + 1
            return [Wait(f"confirm exchange {number}", gm=True)]
        case "ready":
            return _ready(state, dice)


def _ready(state: ExtendedState, dice: DiceMode) -> list[Wait]:
    """Whoever's exchange comes next rolls it; a victor whose parting shot is open may take it first (the next
    exchange closes the chance), and the round waits for it when no exchange is left."""
    shots: list[Wait] = []
    if not state.parting_shot:
        shots = [
            Wait(f"take a parting shot at {_name(state, target)} or let it pass", (victor,))
            for victor, target in state.open_shots.items()
            if state.fighters[victor].in_contest
        ]
    actor = state.actor
    if actor is None:
        return shots or [Wait("start the next round", gm=True)]
    if state.group and not state.ordered and not state.round_begun:
        return [*shots, Wait(f"order round {state.round}", gm=True)]  # the GM orders a group round first
    if state.parting_shot:
        doing = f"roll the parting shot at {_name(state, state.shot_target)}"
    elif _targets_gone(state, actor):
        why = (
            "no target left to engage"
            if state.intent(actor).targets or not state.group
            else f"{_name(state, actor)}'s intent was not sealed in time: it singles out nobody"
        )
        return [*shots, Wait(f"pass the turn ({why})", (actor,))]
    else:
        doing = f"roll exchange {state.exchanges + 1}"
    if dice == "physical" and not state.players_type_faces:
        return [*shots, Wait(doing, gm=True)]  # the GM types in the faces rolled at the table
    return [*shots, Wait(doing, (actor,))]


def _targets_gone(state: ExtendedState, actor: str) -> bool:
    """The actor's exchange engages nobody: every opponent it singled out is out (it passes, or the GM lets it
    change its action)."""
    if state.intent(actor).kind == "unrelated":
        return False
    return not any(state.fighters[t].in_contest for t in state.targets(actor) if t in state.fighters)


def _name(state: ExtendedState, contestant: str | None) -> str:
    fighter = state.fighters.get(contestant or "")
    return fighter.name if fighter is not None else "the defeated"
