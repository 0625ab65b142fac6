"""Rolling a round: both hands, the risk dice and the peril dice; hits, turncoats, chips and the opening."""

from __future__ import annotations

from protocol import errors
from protocol.errors import Refused
from protocol.rulesets import karbon as k
from server.engine.ruleset import Context
from server.rules.karbon import codes
from server.rules.karbon.dice import EXTRA_SIDES, RISK_DICE, result
from server.rules.karbon.draws import distinct_from, draw
from server.rules.karbon.flow import onto_stack, settle
from server.rules.karbon.state import KarbonState, Running


def roll_round(state: KarbonState, command: k.Roll, contest: Running, ctx: Context) -> list[k.Event]:
    agent, narrator = state.at("agent"), state.at("narrator")
    hand = [*agent, *narrator]
    all_in = bool(contest.all_in)
    sides = [d.sides for d in hand] + [EXTRA_SIDES] * ((RISK_DICE if all_in else 0) + contest.peril)
    typed = _typed(state, command, contest, all_in) if ctx.dice.mode == "physical" else None
    if typed is None and (command.faces, command.risk, command.peril, command.drawn) != (None, None, None, None):
        raise Refused(errors.DICE_MODE, "this contest rolls server dice: do not send faces or drawn dice")
    roll = ctx.dice.roll(sides, typed)
    faces = iter(roll.faces)
    rolled = [k.RolledDie(die=d.id, sides=d.sides, face=(f := next(faces)), result=result(f)) for d in hand]
    risk = [next(faces) for _ in range(RISK_DICE if all_in else 0)]
    peril = list(faces)
    ours, theirs = rolled[: len(agent)], rolled[len(agent) :]
    hits = {"agent": _count(ours, "hit"), "narrator": _count(theirs, "hit")}
    turncoats = {"agent": _count(ours, "turncoat"), "narrator": _count(theirs, "turncoat")}
    winner = _most(hits)
    opening = _most(turncoats)
    out: list[k.Event] = [
        k.RoundRolled(
            round=contest.round,
            roll=roll,
            agent=ours,
            narrator=theirs,
            agent_hits=hits["agent"],
            agent_turncoats=turncoats["agent"],
            narrator_hits=hits["narrator"],
            narrator_turncoats=turncoats["narrator"],
            winner=winner,
            opening=opening,
            all_in=all_in,
            risk=risk,
            peril=peril,
        )
    ]
    for side in ("agent", "narrator"):
        if hits[side] and winner in (side, None):
            why = "won the round" if winner == side else "a tie in hits"
            out.append(k.ChipsChanged(side=side, pile="hand", delta=hits[side], why=why))
    if opening is not None:
        surrendered = [d.die for d in (ours if opening == "agent" else theirs) if d.result == "turncoat"]
        other: k.Side = "narrator" if opening == "agent" else "agent"
        out.append(k.DiceMoved(dice=surrendered, to=other, why="an opening"))
    if risk:
        out.extend(_risk(state, command, risk, ctx))
    peril_hits = sum(1 for f in peril if result(f) == "hit")
    out.extend(onto_stack("narrator", peril_hits, contest, "peril"))
    return settle(state, out)


def _risk(state: KarbonState, command: k.Roll, risk: list[int], ctx: Context) -> list[k.Event]:
    """Each hit takes one random die from the main pool into the agent's hand; each other die gives the
    narrator a chip."""
    out: list[k.Event] = []
    hits = sum(1 for f in risk if result(f) == "hit")
    pool = state.ids("pool")
    if ctx.dice.mode == "physical":
        taken = distinct_from(pool, command.drawn or [], min(hits, len(pool)), "drawn")
        roll = None
    else:
        taken, roll = draw(pool, hits, None, False, ctx, "drawn")
    if taken:
        out.append(k.DiceMoved(dice=taken, to="agent", why="all on the line", roll=roll))
    if len(risk) - hits:
        out.append(k.ChipsChanged(side="narrator", pile="hand", delta=len(risk) - hits, why="all on the line"))
    return out


def _typed(state: KarbonState, command: k.Roll, contest: Running, all_in: bool) -> list[int]:
    """Physical dice: the faces typed in, checked against the dice on the table, in rolling order."""
    hand = [*state.at("agent"), *state.at("narrator")]
    faces = command.faces or {}
    missing = [d.id for d in hand if d.id not in faces]
    extra = sorted(set(faces) - {d.id for d in hand})
    if missing or extra:
        raise Refused(
            errors.BAD_FACE, f"faces: give a face for each die in the hands (missing {missing}, not in a hand {extra})"
        )
    for d in hand:
        if not 1 <= faces[d.id] <= d.sides:
            raise Refused(errors.BAD_FACE, f"faces.{d.id}: {faces[d.id]} is not a face of a d{d.sides}")
    risk = command.risk or []
    if len(risk) != (RISK_DICE if all_in else 0):
        wanted = f"the {RISK_DICE} risk dice" if all_in else "no risk dice: the agent is not all in"
        raise Refused(errors.BAD_FACE, f"risk: give {wanted} (got {len(risk)})")
    peril = command.peril or []
    if len(peril) != contest.peril:
        raise Refused(errors.BAD_FACE, f"peril: give {contest.peril} peril dice (got {len(peril)})")
    for field, extra_faces in (("risk", risk), ("peril", peril)):
        for j, value in enumerate(extra_faces):
            if not 1 <= value <= EXTRA_SIDES:
                raise Refused(errors.BAD_FACE, f"{field}[{j}]: {value} is not a face of a d{EXTRA_SIDES}")
    if command.drawn is not None and not all_in:
        raise Refused(codes.WRONG_COUNT, "drawn: only an agent all in draws from the pool")
    return [faces[d.id] for d in hand] + risk + peril


def _count(dice: list[k.RolledDie], what: k.Result) -> int:
    return sum(1 for d in dice if d.result == what)


def _most(counts: dict[str, int]) -> k.Side | None:
    if counts["agent"] == counts["narrator"]:
        return None
    return "agent" if counts["agent"] > counts["narrator"] else "narrator"
