"""Conformance strategy of ``karbon``: a scene of contests around one agent, with server or physical dice.

After every event the twenty dice are all still there, each in one place, and no chip count, stack or
Fortune is negative. After every command a chip has left play only where a rule pays it out or discards it
(``check_batch``). The commands lean towards the overflow that law is about: a payout that fills the victory
track with chips left over (the track one slot from full, the narrator's stack at four, a peril roll with
two hits or more, or stacking in the test up to the track's room and past it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare, RulesetEvent
from protocol.rulesets import karbon as k
from server.rules.karbon.dice import STACK, result, scene_dice
from server.rules.karbon.evolve import evolve
from server.rules.karbon.state import KarbonState
from server.rules.karbon.view import phase
from tests.conformance.kit import Table, sealed_text

SIDES: list[k.Side] = ["agent", "narrator"]
EVERY_DIE = {d.id: d.sides for d in [*scene_dice()[0], *scene_dice()[1]]}
OVERFLOW_PERIL = {"physical": 2, "server": 8}
"""Peril dice enough for a glitch and a chip over from a stack of four: two typed hits, or eight server dice
(a d8 hits three times in eight: two hits or more from eight dice six times in seven)."""

Weighted = list[tuple[int, st.SearchStrategy[Command]]]


def _weighted(choices: Weighted) -> st.SearchStrategy[Command]:
    """One of ``choices``, each drawn as often as its weight. ``st.one_of`` cannot weight: it keeps one copy of
    a strategy listed twice, and spreads a mapped ``one_of`` into its members, so ten noise commands would
    outweigh the phase's one legal move ten to one."""
    return st.sampled_from([s for weight, s in choices for _ in range(weight)]).flatmap(lambda s: s)


@st.composite
def _setup(draw: st.DrawFn) -> CreateContest:
    played = draw(st.booleans())  # else the GM runs the agent
    return CreateContest(
        ruleset="karbon",
        setup=k.KarbonSetup(
            agent="vera",
            name="Vera",
            fortune=draw(st.integers(0, 2)),
            draw=draw(st.sampled_from(["random", "choose"])),
            hands_after=draw(st.sampled_from(["spent", "pool"])),
            players_type_faces=draw(st.booleans()),
        ),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["vera"] if played else [])],
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup()


def _some(ids: list[str], most: int) -> st.SearchStrategy[list[str]]:
    """A few of ``ids`` (or, now and then, a die from nowhere)."""
    return st.lists(st.sampled_from([*ids, "d6-99"]), max_size=most, unique=True)


@st.composite
def _roll(draw: st.DrawFn, state: KarbonState, physical: bool, overflow: bool = False) -> k.Roll:
    """A roll; with ``overflow`` (physical dice) every peril die hits."""
    contest = state.contest
    if not physical or contest is None:
        return k.Roll() if draw(st.integers(0, 5)) else k.Roll(faces={"d6-1": 1})
    hand = [*state.at("agent"), *state.at("narrator")]
    # mostly hits, so stacks fill and pay out within a short run
    faces = {d.id: draw(st.integers(1, 3) | st.integers(1, d.sides)) for d in hand}
    if hand and not draw(st.integers(0, 7)):
        faces[hand[0].id] = hand[0].sides + 1  # not a face of that die
    risk = [draw(st.integers(1, 8)) for _ in range(3)] if contest.all_in else None
    peril_face = st.integers(1, 3) if overflow else st.integers(1, 3) | st.integers(1, 8)
    peril = [draw(peril_face) for _ in range(contest.peril)] or None
    hits = sum(1 for f in risk or [] if result(f) == "hit")
    pool = state.ids("pool")
    drawn = pool[: min(hits, len(pool))] if contest.all_in else None
    return k.Roll(faces=faces, risk=risk, peril=peril, drawn=drawn)


def _start() -> st.SearchStrategy[Command]:
    return st.builds(
        k.StartContest,
        goal=st.just("cross the yard"),
        ability=st.just("Stealth"),
        level=st.integers(0, 6),
        challenge=st.integers(0, 3),
        consequence=st.integers(0, 3),
        peril=st.integers(0, 3),
        injuries=st.integers(0, 1),
    )


def _long_start() -> st.SearchStrategy[Command]:
    """A legal contest with room on the track for several payouts: a win (X) before a glitch, so a
    side-swipe has a win to erase, and breaks that trade dice."""
    return st.builds(
        k.StartContest,
        goal=st.just("cross the yard"),
        ability=st.just("Stealth"),
        level=st.integers(4, 6),
        challenge=st.integers(1, 3),
        consequence=st.just(3),
        peril=st.integers(0, 2),
    )


def _perilous_start() -> st.SearchStrategy[Command]:
    """A legal contest with a short track and high peril: the peril's hits fill the narrator's stack and the
    track, and run over into the next stack."""
    return st.builds(
        k.StartContest,
        goal=st.just("cross the yard"),
        ability=st.just("Stealth"),
        level=st.integers(1, 4),
        challenge=st.integers(1, 3),
        consequence=st.sampled_from([1, 1, 2]),
        peril=st.just(2),
        injuries=st.integers(2, 6),
    )


@st.composite
def _matching(draw: st.DrawFn, given_from: list[str], taken_from: list[str]) -> tuple[list[str], list[str]]:
    """As many dice given as taken (one or two), as a stunning plan trades them."""
    most = min(2, len(given_from), len(taken_from))
    if most == 0:
        return given_from[:1], taken_from[:1]
    n = draw(st.integers(1, most))
    given = draw(st.lists(st.sampled_from(given_from), min_size=n, max_size=n, unique=True))
    taken = draw(st.lists(st.sampled_from(taken_from), min_size=n, max_size=n, unique=True))
    return given, taken


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: KarbonState = table.state
    contest = state.contest
    physical = table.dice == "physical"
    pool, reserve = state.ids("pool"), state.ids("reserve")
    agent, narrator = state.ids("agent"), state.ids("narrator")
    noise: list[st.SearchStrategy[Command]] = [
        _start(),
        st.builds(k.ChangePeril, peril=st.integers(-1, 3)),
        st.builds(k.ChangeChallenge, challenge=st.integers(0, 5), dice=st.none() | _some(pool + narrator, 3)),
        st.builds(
            k.Adjust,
            target=st.sampled_from(["agent_hand", "agent_stack", "narrator_hand", "narrator_stack", "fortune"]),
            delta=st.integers(-3, 3) | st.sampled_from([-1000, 99, 100, 1000]),  # now and then past the limits
            reason=st.sampled_from(["a correction", " "]),
        ),
        st.builds(k.Stack, side=st.sampled_from(SIDES), chips=st.integers(0, 6)),
        st.builds(k.EndTest, side=st.sampled_from(SIDES)),
        st.just(k.SuddenDeath()),
        st.builds(k.ChooseAftermath, aftermath=st.sampled_from(["blackout", "madness"])),
        st.builds(k.DrawHands, agent=_some(pool, 3), narrator=_some(pool, 3)),
        st.builds(k.ChooseBreak, choice=st.sampled_from(["security", "footing", "advantage"])),
    ]
    if table.version % 6 == 0:  # now and then only: backing out ends the contest being played
        noise.append(st.builds(k.BackOut, reason=st.sampled_from(["", "another goal"])))
    # legal moves for the phase, and now and then anything at all (mostly refused)
    options = _brink(state, physical)
    if contest is not None and not contest.rolled:
        options.append((1, _rechallenge(state, physical)))
    match phase(state):
        case "between":
            options += [(3, _perilous_start()), (3, _start()), (3, _long_start())]
            last = state.last_outcome
            if last is not None and last.outcome == "unclear" and last.contest == state.contests:
                options.append((3, st.just(k.SuddenDeath())))
        case "drawing":
            assert contest is not None
            take = min(contest.level, len(pool))
            rest = pool[take:]
            fair = k.DrawHands(agent=pool[:take], narrator=rest[: min(contest.challenge, len(rest))])
            options.append((6, st.just(fair)))
        case "declaring":
            declare = st.sampled_from(["vera", "nobody"]).flatmap(
                lambda p: st.builds(
                    Declare, participant=st.just(p), payload=st.builds(k.Risk, move=st.just(sealed_text(table, p)))
                )
            )
            options.append((6, declare))
        case "ready":
            assert contest is not None
            options.append((8, _roll(state, physical)))
            if physical and contest.consequence - len(contest.track) == 1:
                options.append((4, _roll(state, physical, overflow=True)))
        case "test":
            options += _test(state, agent, narrator, reserve)
        case "aftermath":
            options.append((4, st.builds(k.ChooseAftermath, aftermath=st.sampled_from(["blackout", "madness"]))))
    return _weighted([*options, (3, st.one_of(noise))])


def _rechallenge(state: KarbonState, physical: bool) -> st.SearchStrategy[Command]:
    """A legal change of challenge before a roll: one up (the die it adds drawn, or named from the pool) or one
    down (a die of the narrator's hand back to the pool)."""
    contest = state.contest
    assert contest is not None
    now, by_name = contest.challenge, physical or state.draw == "choose"
    pool, hand = state.ids("pool"), state.ids("narrator")
    changes: list[k.ChangeChallenge] = []
    if not contest.drawn:
        changes += [k.ChangeChallenge(challenge=c) for c in (now - 1, now + 1) if c >= 1]
    else:
        if pool:
            changes.append(k.ChangeChallenge(challenge=now + 1, dice=pool[:1] if by_name else None))
        if now > 1:
            changes.append(k.ChangeChallenge(challenge=now - 1, dice=hand[:1]))
    return st.sampled_from(changes) if changes else st.just(k.ChangeChallenge(challenge=now))


def _brink(state: KarbonState, physical: bool) -> Weighted:
    """Before a roll, the overflow's set-up: the narrator's stack at four, and peril dice enough that their hits
    pay out a glitch and run over into the next stack; mostly when the track has one slot left, so that the
    glitch fills it (docs/rules/karbon.md, "The Stacks")."""
    contest = state.contest
    if contest is None or contest.rolled:
        return []
    last_slot = contest.consequence - len(contest.track) == 1
    out: Weighted = []
    if contest.stacks["narrator"] < STACK - 1:
        to_four = STACK - 1 - contest.stacks["narrator"]
        brink = k.Adjust(target="narrator_stack", delta=to_four, reason="the brink")
        out.append((4 if last_slot else 1, st.just(brink)))
    least = OVERFLOW_PERIL["physical" if physical else "server"]
    if last_slot and contest.peril < least:
        # now and then more hits than the track has room for: the next stack stops at four
        out.append((3, st.builds(k.ChangePeril, peril=st.integers(least, least + 6), reason=st.just("the roof"))))
    return out


def _test(state: KarbonState, agent: list[str], narrator: list[str], reserve: list[str]) -> Weighted:
    contest = state.contest
    assert contest is not None
    if contest.waiting:
        first = contest.waiting[0]
        if first.payout == "break":
            trade = _matching(agent, reserve).map(
                lambda trade: k.ChooseBreak(choice="advantage", dice=trade[0], reserve=trade[1])
            )
            return [
                (2, st.just(k.ChooseBreak(choice="security"))),
                (
                    2,
                    st.builds(
                        k.ChooseBreak,
                        choice=st.just("footing"),
                        option=st.sampled_from(["discard", "dice"]),
                        dice=st.just(narrator[:2]),
                    ),
                ),
                (
                    2,
                    st.builds(
                        k.ChooseBreak, choice=st.just("advantage"), dice=_some(agent, 3), reserve=_some(reserve, 3)
                    ),
                ),
                (6, trade),
            ]
        if first.choice is None:
            side_swiped = st.builds(
                k.ChooseGlitch,
                choice=st.just("side_swiped"),
                option=st.sampled_from(["chips", "dice"]),
                dice=st.just(narrator[:2]),
            )
            return [
                (2, st.builds(k.ChooseGlitch, choice=st.sampled_from(["hurt", "plans"]))),
                (6 if "X" in contest.track else 2, side_swiped),
            ]
        named = state.ids("pool")[:2] if state.draw == "choose" else None
        return [
            (
                3,
                st.builds(
                    k.NarratorOption, option=st.sampled_from(["injury", "condition", "peril"]), label=st.just("hurt")
                ),
            ),
            (3, st.builds(k.NarratorOption, option=st.just("dice"), dice=st.just(named) | st.none())),
        ]
    slots = contest.consequence - len(contest.track)
    out: Weighted = []
    for side in contest.stacking:
        held, fits = contest.chips[side], _room(contest.stacks[side], slots)
        out.append((3, st.just(k.Stack(side=side, chips=held))))
        # up to the track's room (the payout that fills it leaves chips over for the next stack) and one past it
        out += [(2, st.just(k.Stack(side=side, chips=n))) for n in (fits, fits + 1) if 0 < n <= held]
    return [
        *out,
        (3, st.builds(k.Stack, side=st.sampled_from(contest.stacking or SIDES), chips=st.integers(1, 5))),
        (3, st.builds(k.EndTest, side=st.sampled_from(contest.stacking or SIDES))),
    ]


def check_event(before: KarbonState, event: RulesetEvent, after: KarbonState) -> None:
    """The scene's twenty dice are conserved, each in one place; no chip count is negative."""
    if not isinstance(event, k.SceneStarted):
        assert {d.id: d.sides for d in after.dice.values()} == {d.id: d.sides for d in before.dice.values()}
    assert {d.id: d.sides for d in after.dice.values()} == EVERY_DIE, event
    assert all(d.id == key for key, d in after.dice.items())
    assert after.fortune >= 0, event
    if isinstance(event, k.FortuneAdjusted) and event.delta > 0:
        assert after.fortune <= k.MAX_FORTUNE, event  # a correction stays within the setup's limit
    correction = isinstance(event, k.ChipsChanged) and event.why.startswith("corrected")
    if correction and isinstance(event, k.ChipsChanged) and event.pile == "hand" and event.delta > 0:
        assert after.contest is not None and after.contest.chips[event.side] <= 1000, event  # at most 1,000
    contest = after.contest
    if contest is not None:
        for side in SIDES:
            assert contest.chips[side] >= 0, (event, contest.chips)
            assert 0 <= contest.stacks[side] <= STACK, (event, contest.stacks)
        assert contest.peril >= 0 and contest.challenge >= 1
        assert len(contest.track) <= contest.consequence


def check_batch(before: KarbonState, events: Sequence[RulesetEvent], after: KarbonState) -> None:
    """A chip leaves play only where a rule pays it out or discards it: every chip a roll earns (the winner's
    hits, a risk's misses and turncoats, the peril's hits) or a rule gives (hurt: two chips, a correction)
    is still in a hand or on a stack after the command, unless a full stack paid it out (five chips), a
    break's footing discarded the narrator's hand, or the contest ended (concluded or backed out of). Peril
    hits a full track has no room for are the one exception: the narrator's stack stops at four once no
    slot is left for its glitch (docs/rules/karbon.md, "The Stacks")."""
    state, expected = before, _in_play(before)
    for event in events:
        contest = state.contest
        match event:
            case k.RoundRolled():
                assert contest is not None
                for side in SIDES:
                    if event.winner in (side, None):
                        expected += event.agent_hits if side == "agent" else event.narrator_hits
                expected += sum(1 for f in event.risk if result(f) != "hit")
                peril = sum(1 for f in event.peril if result(f) == "hit")
                expected += min(peril, _room(contest.stacks["narrator"], contest.consequence - len(contest.track)))
            case k.NarratorOptionChosen(option="injury"):
                expected += 2  # hurt: an injury and two chips
            case k.ChipsChanged() if event.why.startswith("corrected"):
                expected += event.delta
            case k.StackPaidOut():
                expected -= STACK
            case k.BreakChosen(choice="footing", option="discard"):
                assert contest is not None
                expected -= contest.chips["narrator"]
            case k.ContestConcluded() | k.BackedOut():
                expected -= _in_play(state)
            case _:
                pass
        state = evolve(state, cast(k.Event, event))  # the batch of a Karbon command
    assert _in_play(after) == expected, (events, before.contest, after.contest)


def _in_play(state: KarbonState) -> int:
    """The chips of the contest being played: in both hands and on both stacks."""
    contest = state.contest
    return 0 if contest is None else sum(contest.chips.values()) + sum(contest.stacks.values())


def _room(stack: int, slots: int) -> int:
    """How many chips a stack holding ``stack`` takes with ``slots`` free on the track: enough for a payout
    per slot, then four more (a fifth would pay out with no slot left for its mark)."""
    return (STACK - stack) + STACK * (slots - 1) + (STACK - 1) if slots > 0 else max(0, STACK - 1 - stack)
