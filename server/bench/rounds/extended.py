"""A 2-vs-2 group extended contest: Ann's Aria and Bo's Bran against Cy's Orc and Di's Wolf.

A round: four sealed intents (each from its own player), the reveal, the GM ordering the round by daring,
then four exchanges, each a roll by the actor's player and the answers of the two players in it (they let
the roll stand) — 17 commands while everyone is in. A victor's parting shot is declined and an actor with no
target left passes its turn, as its player would.
"""

from __future__ import annotations

from protocol.events import CreateContest, Declare
from protocol.rulesets import extended as x
from server.bench.rounds import Json, Move, Round, doing, exchange, seat_of, seats, undeclared

PLAYS = {"p1": ["aria"], "p2": ["bran"], "p3": ["orc"], "p4": ["wolf"]}
SIDE = {"aria": "heroes", "bran": "heroes", "orc": "raiders", "wolf": "raiders"}
RATING = {"aria": "15", "bran": "14", "orc": "15", "wolf": "13"}
FOE = {"aria": "orc", "bran": "wolf", "orc": "aria", "wolf": "bran"}
DARING: list[x.Daring] = ["cautious", "bold", "daring", "reckless"]


def request(contest: str) -> CreateContest:
    return CreateContest(
        ruleset="extended",
        title="Raid on the mill",
        dice="server",
        contest=contest,
        seats=seats(PLAYS),
        setup=x.ExtendedSetup(
            prize="the mill",
            contestants=[
                x.Contestant(id=c, name=c.title(), ability="Fight", rating=RATING[c], side=SIDE[c], hero_points=1)
                for c in SIDE
            ],
        ),
    )


def _intent(rules: Json, contestant: str) -> x.Intent:
    """An attack on its own foe while that one is in, else on the first opponent still in."""
    standing = {c["id"] for c in rules["contestants"] if not c["out"] and not c["withdrawn"]}
    opponents = [c for c in SIDE if SIDE[c] != SIDE[contestant] and c in standing]
    target = FOE[contestant] if FOE[contestant] in standing else opponents[0]
    turn = rules["round"] + len(contestant)
    return x.Intent(
        action=f"{contestant.title()} strikes at {target.title()}",
        bid=2 + turn % 3,
        daring=DARING[turn % len(DARING)],
        targets=[target],
    )


def next_move(view: Json) -> Move:
    rules = view["rules"]
    match rules["phase"]:
        case "declaring":
            who = undeclared(view)[0]
            return Move(seat_of(PLAYS, who), Declare(participant=who, payload=_intent(rules, who)))
        case "ready":
            if rules["parting_shots"]:
                victor = next(iter(rules["parting_shots"]))
                return Move(seat_of(PLAYS, victor), x.DeclinePartingShot(contestant=victor))
            if not rules["ordered"] and not rules["acted"]:
                return Move("gm", x.OrderBy(mode="daring"), awaited=False)
            actor = rules["next_actor"]
            if doing(view).startswith("pass the turn"):
                return Move(seat_of(PLAYS, actor), x.PassTurn(contestant=actor))
            return Move(seat_of(PLAYS, actor), x.Roll(), rolls=True)
        case "rolled":
            pending = rules["exchange"]["answers_pending"]
            if pending:
                return Move(seat_of(PLAYS, pending[0]), x.PassHeroPoint(contestant=pending[0]))
            return Move("gm", x.Confirm())
    raise ValueError(f"extended: nothing to play in phase {rules['phase']!r} ({view['waiting']})")


PEER = (
    *((p, "seal") for p in PLAYS),
    ("gm", "step"),
    *exchange("p1", "p3"),
    *exchange("p3", "p1"),
    *exchange("p2", "p4"),
    *exchange("p4", "p2"),
)
ROUND = Round("extended", request, next_move, PEER)
