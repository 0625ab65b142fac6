"""A scored sequence: Ann's Aria and Bo's Bors against Cy's Ogre and Di's Hag.

A round: the GM starts it between two opponents still in (the pairs turn), the two tactics sealed by their
players, the roll by the initiative's player, and the answers of both players (they keep their story
points) — 6 commands.
"""

from __future__ import annotations

from protocol.events import CreateContest, Declare
from protocol.rulesets import scored as s
from server.bench.rounds import Json, Move, Round, seat_of, seats, undeclared

PLAYS = {"p1": ["aria"], "p2": ["bors"], "p3": ["ogre"], "p4": ["hag"]}
SIDE = {"aria": "heroes", "bors": "heroes", "ogre": "opposition", "hag": "opposition"}
RATING = {"aria": "15", "bors": "14", "ogre": "15", "hag": "13"}
TACTICS: list[s.TacticKind] = ["none", "gambit", "defensive", "none"]


def request(contest: str) -> CreateContest:
    return CreateContest(
        ruleset="scored",
        title="The chase",
        dice="server",
        contest=contest,
        seats=seats(PLAYS),
        setup=s.ScoredSetup(
            prize="the caravan",
            contestants=[
                s.Contestant(id=c, name=c.title(), side=side, ability="Chase", rating=RATING[c], story_points=1)
                for c, side in SIDE.items()
            ],
        ),
    )


def _pair(rules: Json) -> tuple[str, str]:
    """The next round's initiative and responder: the sides take turns to lead, each sending its members in
    turn, among those still in."""
    standing = [c["id"] for c in rules["contestants"] if c["present"] and c["out"] is None]
    heroes = [c for c in standing if SIDE[c] == "heroes"]
    others = [c for c in standing if SIDE[c] == "opposition"]
    n = rules["round"]
    hero, other = heroes[n // 2 % len(heroes)], others[n // 2 % len(others)]
    return (hero, other) if n % 2 else (other, hero)


def next_move(view: Json) -> Move:
    rules = view["rules"]
    match rules["phase"]:
        case "between":
            initiative, responder = _pair(rules)
            return Move("gm", s.StartRound(initiative=initiative, responder=responder))
        case "declaring":
            who = undeclared(view)[0]
            tactic = s.Tactic(tactic=TACTICS[(rules["round"] + len(who)) % len(TACTICS)], action=f"{who} rides hard")
            return Move(seat_of(PLAYS, who), Declare(participant=who, payload=tactic))
        case "ready":
            return Move(seat_of(PLAYS, rules["initiative"]), s.Roll(), rolls=True)
        case "rolled":
            waiting = rules["pending"]["waiting_for"]
            if waiting:
                return Move(seat_of(PLAYS, waiting[0]), s.KeepStoryPoints(contestant=waiting[0]))
            return Move("gm", s.Confirm())
    raise ValueError(f"scored: nothing to play in phase {rules['phase']!r} ({view['waiting']})")


PEER = (("gm", "step"), ("p1", "seal"), ("p3", "seal"), ("p1", "roll"), ("p1", "answer"), ("p3", "answer"))
ROUND = Round("scored", request, next_move, PEER, origin=1)
