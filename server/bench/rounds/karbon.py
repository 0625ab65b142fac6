"""A Karbon scene around Ann's agent Vera (Bo, Cy and Di hold player seats that play nobody).

The GM sets up a contest (two wins on the track, peril 1, hands drawn at random); a round is Vera's risk
sealed by Ann, her roll, then the test: each winner stacks the chips in hand (Ann for the agent, the GM for
the narrator) — with a break or a glitch when a stack pays out (Ann chooses: the narrator's chips discarded,
or plans taking a turn; the GM then adds a peril die, which lasts as long as the contest). When the track is
full the GM sets up the next contest: the scene goes on for as long as the run.
"""

from __future__ import annotations

from protocol.events import CreateContest, Declare
from protocol.rulesets import karbon as k
from server.bench.rounds import Json, Move, Round, seats

PLAYS = {"p1": ["vera"]}
STACK = 5  # a stack pays out at five chips


def request(contest: str) -> CreateContest:
    return CreateContest(
        ruleset="karbon",
        title="The docks at night",
        dice="server",
        contest=contest,
        seats=seats(PLAYS),
        setup=k.KarbonSetup(agent="vera", name="Vera", fortune=3, hands_after="pool"),
    )


def _side_seat(side: str) -> str:
    return "p1" if side == "agent" else "gm"


def _test(rules: Json) -> Move:
    side = rules["stacking"][0]
    held = rules["sides"][side]
    contest = rules["contest"]
    room = (contest["consequence"] - len(contest["track"])) * STACK - held["stack"]
    chips = min(held["chips"], room)
    if chips > 0:
        return Move(_side_seat(side), k.Stack(side=side, chips=chips))
    return Move(_side_seat(side), k.EndTest(side=side))


def _choice(pending: Json) -> Move:
    if pending["payout"] == "break":
        return Move("p1", k.ChooseBreak(choice="footing", option="discard"))
    if pending["choice"] is None:  # plans take a turn: the narrator adds a peril die (for this contest only)
        return Move("p1", k.ChooseGlitch(choice="plans"))
    return Move("gm", k.NarratorOption(option="peril"))


def next_move(view: Json) -> Move:
    rules = view["rules"]
    if rules["pending"]:
        return _choice(rules["pending"][0])
    match rules["phase"]:
        case "between":
            start = k.StartContest(
                goal="slip past the guards", ability="Stealth", level=3, challenge=3, consequence=2, peril=1
            )
            return Move("gm", start)
        case "declaring":
            return Move("p1", Declare(participant="vera", payload=k.Risk(all_in=False, move="a quiet step")))
        case "ready":
            return Move("p1", k.Roll(), rolls=True)
        case "test":
            return _test(rules)
        case "aftermath":
            return Move("p1", k.ChooseAftermath(aftermath="blackout"))
    raise ValueError(f"karbon: nothing to play in phase {rules['phase']!r} ({view['waiting']})")


PEER = (("p1", "seal"), ("p1", "roll"), ("p1", "step"), ("gm", "step"))  # the test: both stack (a tie)
ROUND = Round("karbon", request, next_move, PEER)
