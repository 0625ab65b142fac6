"""A Hero Wars duel: Ann's Erik against Bo's Jonas (Cy and Di hold player seats that play nobody).

A round: two sealed intents, the reveal, then two exchanges, each a roll by the actor's player and both
players' answers (they let the roll stand) — 8 commands; a tie waits for the GM to settle it (nobody loses).
"""

from __future__ import annotations

from protocol.events import CreateContest, Declare
from protocol.rulesets import herowars as h
from server.bench.rounds import Json, Move, Round, exchange, seat_of, seats, undeclared

PLAYS = {"p1": ["erik"], "p2": ["jonas"]}
RATING = {"erik": "16", "jonas": "14"}


def request(contest: str) -> CreateContest:
    return CreateContest(
        ruleset="herowars",
        title="The ford",
        dice="server",
        contest=contest,
        seats=seats(PLAYS),
        setup=h.HerowarsSetup(
            prize="the ford",
            contestants=[
                h.Contestant(id=c, name=c.title(), ability="Sword", rating=rating, followers_ap=12, hero_points=1)
                for c, rating in RATING.items()
            ],
        ),
    )


def next_move(view: Json) -> Move:
    rules = view["rules"]
    match rules["phase"]:
        case "declaring":
            who = undeclared(view)[0]
            intent = h.Intent(action=f"{who.title()} presses on", bid=2 + (rules["round"] + len(who)) % 3)
            return Move(seat_of(PLAYS, who), Declare(participant=who, payload=intent))
        case "ready":
            actor = rules["next_actor"]
            return Move(seat_of(PLAYS, actor), h.Roll(), rolls=True)
        case "rolled":
            pending = rules["exchange"]["answers_pending"]
            if pending:
                return Move(seat_of(PLAYS, pending[0]), h.PassHeroPoint(contestant=pending[0]))
            return Move("gm", h.Confirm())
        case "tied":
            return Move("gm", h.SettleTie(winner=None, reason="they circle each other"))
    raise ValueError(f"herowars: nothing to play in phase {rules['phase']!r} ({view['waiting']})")


PEER = (("p1", "seal"), ("p2", "seal"), *exchange("p1", "p2"), *exchange("p2", "p1"))
ROUND = Round("herowars", request, next_move, PEER)
