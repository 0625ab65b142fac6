"""The test after a round: stacking chips, and the choices a full stack pays out (breaks and glitches)."""

from __future__ import annotations

from protocol.errors import Refused
from protocol.rulesets import karbon as k
from server.engine.ruleset import Context
from server.rules.karbon import codes
from server.rules.karbon.draws import by_name, distinct_from, draw
from server.rules.karbon.flow import onto_stack, placed, room, settle
from server.rules.karbon.state import KarbonState, Running, Waiting

MAX_TRADE = 2  # a stunning plan trades one or two hand dice with the reserve
GIFT = 2  # two dice or two chips change hands


def stack(state: KarbonState, command: k.Stack, contest: Running) -> list[k.Event]:
    _stacking(state, contest, command.side)
    if command.chips < 1:
        raise Refused(codes.NOT_ENOUGH_CHIPS, f"chips: stack at least one chip, not {command.chips}")
    held = contest.chips[command.side]
    if command.chips > held:
        raise Refused(codes.NOT_ENOUGH_CHIPS, f"chips: {command.side} holds {held} chips, not {command.chips}")
    fits = room(contest.stacks[command.side], contest.consequence - len(contest.track))
    if command.chips > fits:
        raise Refused(
            codes.TRACK_FULL,
            f"chips: the victory track has room for {fits} more chips on {command.side}'s stack, not {command.chips}",
        )
    stacked = onto_stack(command.side, command.chips, contest, "the test")
    moved = [k.ChipsChanged(side=command.side, pile="hand", delta=-placed(stacked), why="the test")]
    return settle(state, [*moved, *stacked])


def end_test(state: KarbonState, command: k.EndTest, contest: Running) -> list[k.Event]:
    _stacking(state, contest, command.side)
    return settle(state, [k.TestEnded(side=command.side)])


def choose_break(state: KarbonState, command: k.ChooseBreak, contest: Running) -> list[k.Event]:
    _waiting(contest, "break", None)
    chosen = k.BreakChosen(choice=command.choice, option=command.option)
    effects: list[k.Event]
    match command.choice:
        case "security":
            _no_extras(command.option, command.dice or [], command.reserve or [])
            if contest.peril == 0:
                raise Refused(codes.NO_PERIL, "choice: the contest has no peril die to remove")
            effects = [k.PerilChanged(peril=contest.peril - 1, reason="a break: security")]
        case "footing":
            if command.reserve:
                raise Refused(codes.BAD_CHOICE, "reserve: only a stunning plan (advantage) trades with the reserve")
            effects = _footing(state, contest, command)
        case "advantage":
            if command.option is not None:
                raise Refused(codes.BAD_CHOICE, "option: advantage has no option; name dice and reserve")
            effects = _trade(state, command.dice or [], command.reserve or [])
    return settle(state, [chosen, *effects])


def _footing(state: KarbonState, contest: Running, command: k.ChooseBreak) -> list[k.Event]:
    match command.option:
        case "discard":
            if command.dice:
                raise Refused(codes.BAD_CHOICE, "dice: the narrator discards chips; no dice are named")
            held = contest.chips["narrator"]
            return [k.ChipsChanged(side="narrator", pile="hand", delta=-held, why="a break: footing")] if held else []
        case "dice":
            return _gift(state, command.dice or [], "a break: footing")
        case None:
            raise Refused(codes.BAD_CHOICE, "option: footing needs 'discard' (the narrator's chips) or 'dice'")


def _trade(state: KarbonState, given: list[str], taken: list[str]) -> list[k.Event]:
    if len(given) > MAX_TRADE or len(taken) > MAX_TRADE:
        raise Refused(
            codes.TOO_MANY_DICE,
            f"dice, reserve: a stunning plan trades one or two dice, not {max(len(given), len(taken))}",
        )
    if not given:
        raise Refused(codes.WRONG_COUNT, "dice: name one or two dice of the agent's hand to trade")
    away = distinct_from(state.ids("agent"), given, len(given), "dice")
    back = distinct_from(state.ids("reserve"), taken, len(given), "reserve")
    return [
        k.DiceMoved(dice=away, to="reserve", why="a break: advantage"),
        k.DiceMoved(dice=back, to="agent", why="a break: advantage"),
    ]


def _gift(state: KarbonState, named: list[str], why: str) -> list[k.Event]:
    """Two of the narrator's dice (all it has, if fewer), named by the agent's player, join the agent's hand."""
    hand = state.ids("narrator")
    given = distinct_from(hand, named, min(GIFT, len(hand)), "dice")
    return [k.DiceMoved(dice=given, to="agent", why=why)] if given else []


def choose_glitch(state: KarbonState, command: k.ChooseGlitch, contest: Running) -> list[k.Event]:
    _waiting(contest, "glitch", None)
    chosen = k.GlitchChosen(choice=command.choice, option=command.option)
    if command.choice != "side_swiped":
        if command.option is not None or command.dice:
            raise Refused(codes.BAD_CHOICE, f"option, dice: after {command.choice!r} the narrator picks")
        return [chosen]
    if "X" not in contest.track:
        raise Refused(codes.NO_WIN_TO_ERASE, "choice: side-swiped erases a win, and the track has none")
    effects: list[k.Event]
    match command.option:
        case "chips":
            if command.dice:
                raise Refused(codes.BAD_CHOICE, "dice: the narrator's chips are given, not dice")
            held = contest.chips["narrator"]
            effects = (
                [
                    k.ChipsChanged(side="narrator", pile="hand", delta=-held, why="a glitch: side-swiped"),
                    k.ChipsChanged(side="agent", pile="hand", delta=held, why="a glitch: side-swiped"),
                ]
                if held
                else []
            )
        case "dice":
            effects = _gift(state, command.dice or [], "a glitch: side-swiped")
        case None:
            raise Refused(codes.BAD_CHOICE, "option: side-swiped needs 'chips' or 'dice'")
    return settle(state, [chosen, k.WinErased(), *effects])


def narrator_option(state: KarbonState, command: k.NarratorOption, contest: Running, ctx: Context) -> list[k.Event]:
    waiting = _waiting(contest, "glitch", "narrator")
    allowed = {"hurt": ("injury", "condition"), "plans": ("dice", "peril")}[waiting.choice or ""]
    if command.option not in allowed:
        raise Refused(codes.BAD_CHOICE, f"option: after {waiting.choice!r} the narrator picks one of {list(allowed)}")
    if command.dice is not None and command.option != "dice":
        raise Refused(codes.BAD_CHOICE, f"dice: {command.option!r} moves no dice")
    chosen = k.NarratorOptionChosen(option=command.option, label=command.label)
    effects: list[k.Event] = []
    match command.option:
        case "injury":
            effects = [k.ChipsChanged(side="agent", pile="hand", delta=GIFT, why="a glitch: hurt")]
        case "condition":
            effects = []
        case "dice":
            pool = state.ids("pool")
            if not pool:
                raise Refused(codes.POOL_EMPTY, "option: the main pool is empty; the narrator cannot take dice")
            taken, roll = draw(pool, GIFT, command.dice, by_name(state, ctx), ctx, "dice")
            effects = [k.DiceMoved(dice=taken, to="narrator", why="a glitch: plans", roll=roll)]
        case "peril":
            effects = [k.PerilChanged(peril=contest.peril + 1, reason="a glitch: plans")]
    return settle(state, [chosen, *effects])


def _stacking(state: KarbonState, contest: Running, side: k.Side) -> None:
    if not contest.rolled:
        raise Refused(codes.OUT_OF_PHASE, "the test follows the round's roll")
    if contest.waiting:
        raise Refused(codes.CHOICE_PENDING, f"a {contest.waiting[0].payout} waits for its choice first")
    if side not in _winners(state):
        raise Refused(codes.NOT_ROUND_WINNER, f"side: {side} did not win round {contest.round}; only the winner stacks")
    if side not in contest.stacking:
        raise Refused(codes.OUT_OF_PHASE, f"side: {side} has ended its test")


def _winners(state: KarbonState) -> list[k.Side]:
    """Who won the round just rolled: one side, or both on a tie in hits."""
    roll = state.last_roll
    if roll is None:
        return []
    return ["agent", "narrator"] if roll.winner is None else [roll.winner]


def _waiting(contest: Running, payout: k.Payout, stage: str | None) -> Waiting:
    if not contest.waiting:
        raise Refused(codes.OUT_OF_PHASE, f"no {payout} waits for a choice")
    first = contest.waiting[0]
    if first.payout != payout or (first.choice is not None) != (stage == "narrator"):
        wanted = "the narrator's option" if first.choice is not None else f"the player's {first.payout} choice"
        raise Refused(codes.OUT_OF_PHASE, f"the table waits for {wanted}")
    return first


def _no_extras(option: str | None, dice: list[str], reserve: list[str]) -> None:
    if option is not None or dice or reserve:
        raise Refused(codes.BAD_CHOICE, "option, dice, reserve: security removes a peril die and nothing else")
