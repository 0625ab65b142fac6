"""Stable error codes of the scored ruleset, and the checks its decisions share."""

from __future__ import annotations

from protocol.errors import FORBIDDEN, NOT_YOUR_SEAT, Refused
from server.engine.ruleset import Context
from server.rules.questworlds.setup import BAD_RATING, parse_rating
from server.rules.scored.state import Member, ScoredState

OUT_OF_PHASE = "rules/out_of_phase"
NO_SUCH_CONTESTANT = "rules/no_such_contestant"
OUT_OF_CONTEST = "rules/out_of_contest"  # the contestant is out (or has not joined): it cannot act
SAME_SIDE = "rules/same_side"
NOT_A_TEAMMATE = "rules/not_a_teammate"
NOT_IN_ROUNDS = "rules/not_in_rounds"  # secondary contestants and supporters do not roll rounds
SUPPORTER_DOES_NOT_ENGAGE = "rules/supporter_does_not_engage"  # a supporter assists; it engages nobody
OTHERWISE_ENGAGED = "rules/otherwise_engaged"  # it has met in a round an opponent still in: no follower for it
ASSIST_SELF = "rules/assist_self"
NOT_SECONDARY = "rules/not_secondary"
NOT_A_FOLLOWER = "rules/not_a_follower"
BAD_POINTS = "rules/bad_points"
NOT_TAKEN_OUT = "rules/not_taken_out"
SHOT_TAKEN = "rules/shot_taken"
SHOT_TOO_LATE = "rules/shot_too_late"  # the target went out before the round under way or just played
BEATEN = "rules/beaten"  # the sequence is decided: the beaten side acts no more
ALREADY_IN = "rules/already_in"
NOT_A_COMRADE = "rules/not_a_comrade"  # a late arrival shares only a main contestant's tally
NO_STORY_POINT = "rules/no_story_point"
BAD_TACTIC = "rules/bad_tactic"
NO_REASON = "rules/no_reason"
BAD_DELTA = "rules/bad_delta"
TYPED_BY_GM = "dice/typed_by_gm"
BAD_SETUP = "contest/bad_setup"

__all__ = ["BAD_RATING", "FORBIDDEN", "NOT_YOUR_SEAT", "parse_rating"]


def check_switch(ability: str | None, rating: str | None) -> None:
    """Another ability names the ability and its rating together."""
    if (ability is None) != (rating is None):
        raise Refused(BAD_TACTIC, "ability, rating: another ability gives both the ability and its rating")
    if rating is not None:
        parse_rating(rating, "rating")


def member(state: ScoredState, contestant: str, field: str = "contestant") -> Member:
    found = state.members.get(contestant)
    if found is None:
        raise Refused(NO_SUCH_CONTESTANT, f"{field}: no contestant {contestant!r}")
    return found


def active(state: ScoredState, contestant: str, field: str = "contestant") -> Member:
    """A contestant that may act: present and not out."""
    found = member(state, contestant, field)
    if not found.present:
        raise Refused(OUT_OF_CONTEST, f"{field}: {contestant!r} has not joined the sequence")
    if found.out is not None:
        raise Refused(OUT_OF_CONTEST, f"{field}: {contestant!r} is out of the sequence")
    return found


def acts_for(ctx: Context, contestant: str, field: str = "contestant") -> None:
    """The GM acts for anyone; a player for its own contestants."""
    if not (ctx.is_gm or ctx.may_act_for(contestant)):
        raise Refused(NOT_YOUR_SEAT, f"{field}: you do not control {contestant!r}")


def gm(ctx: Context, what: str) -> None:
    if not ctx.is_gm:
        raise Refused(FORBIDDEN, f"only a GM may {what}")


def types_faces(state: ScoredState, ctx: Context) -> None:
    if ctx.dice.mode == "physical" and not ctx.is_gm and not state.players_type_faces:
        raise Refused(TYPED_BY_GM, "faces: the GM types in the faces rolled at the table")


def between_rounds(state: ScoredState, what: str) -> None:
    if state.phase != "between":
        raise Refused(OUT_OF_PHASE, f"{what} happens between rounds (the sequence is {state.phase})")
