"""The adjust-only load, as a row of the mix: the GM adjusting Aria's AP in a duel (``server.bench.agon``),
up and down in turn, one command after another — the load of the earlier table-night tables."""

from __future__ import annotations

from protocol.rulesets import extended as x
from server.bench.agon import request
from server.bench.rounds import Json, Move, Round


def next_move(view: Json) -> Move:
    aria = view["rules"]["contestants"][0]
    delta = -1 if aria["ap"] > aria["starting_ap"] else 1
    return Move("gm", x.Adjust(contestant="aria", delta=delta, reason="bench"), awaited=False)  # a correction


ROUND = Round("adjust", request, next_move)
