"""A Contingency encounter at a ford: Ann's Rook, Bo's Wren, Cy's Moss and Di's Fen against the GM's bandit.

A round: the GM calls for intent, five sealed intents (one action each: the four players' and the GM's),
the reveal, the five actions rolled in the order of resolution, each by its character's player (the GM for
the bandit), and the GM ending the round — 12 commands. The encounter goes on for as long as the run.
"""

from __future__ import annotations

from protocol.events import CreateContest, Declare
from protocol.rulesets import contingency as c
from server.bench.rounds import Json, Move, Round, seat_of, seats, undeclared

PLAYS = {"p1": ["rook"], "p2": ["wren"], "p3": ["moss"], "p4": ["fen"]}
ACTIONS = ["Strike", "Taunt", "Hide", "Shoot", "Parley"]


def request(contest: str) -> CreateContest:
    return CreateContest(
        ruleset="contingency",
        title="The ford",
        dice="server",
        contest=contest,
        seats=seats(PLAYS),
        setup=c.ContingencySetup(
            zones=[
                c.Zone(id="bank", name="Bank"),
                c.Zone(id="river", name="River", modifier=1),
                c.Zone(id="shore", name="Far shore"),
            ],
            connections=[c.Connection(a="bank", b="river"), c.Connection(a="river", b="shore")],
            characters=[
                c.Character(id="rook", name="Rook", zone="bank"),
                c.Character(id="wren", name="Wren", zone="bank"),
                c.Character(id="moss", name="Moss", zone="river"),
                c.Character(id="fen", name="Fen", zone="river"),
                c.Character(id="bandit", name="Bandit", zone="shore"),
            ],
        ),
    )


def next_move(view: Json) -> Move:
    rules = view["rules"]
    match rules["phase"]:
        case "scene":
            return Move("gm", c.OpenIntent())
        case "intent":
            who = undeclared(view)[0]
            action = ACTIONS[(rules["round"] + len(who)) % len(ACTIONS)]
            intent = c.Intent(actions=[action], note=f"{who} makes a move")
            return Move(seat_of(PLAYS, who), Declare(participant=who, payload=intent))
        case "resolving":
            rolling = rules["rolling"]
            if rolling is not None:  # a penalty taken one way of several: its player takes it off the first die
                reductions = [rolling["penalty"]] + [0] * (len(rolling["faces"]) - 1)
                return Move(seat_of(PLAYS, rolling["character"]), c.TakePenalty(reductions=reductions))
            action = next(a for a in rules["actions"] if a["id"] == rules["next_action"])
            return Move(seat_of(PLAYS, action["character"]), c.Roll(), rolls=True)
        case "environment":
            return Move("gm", c.EndRound())
    raise ValueError(f"contingency: nothing to play in phase {rules['phase']!r} ({view['waiting']})")


PEER = (
    ("gm", "step"),
    *((p, "seal") for p in [*PLAYS, "gm"]),
    *((p, "roll") for p in [*PLAYS, "gm"]),
    ("gm", "step"),
)
ROUND = Round("contingency", request, next_move, PEER)
