"""Stable error codes of the extended ruleset, and small checks shared by its decisions."""

from __future__ import annotations

from protocol.errors import Refused
from server.rules.questworlds.hero_points import HERO_POINT_NO_EFFECT as HERO_POINT_NO_EFFECT
from server.rules.questworlds.hero_points import NO_HERO_POINT as NO_HERO_POINT
from server.rules.questworlds.levels import Level
from server.rules.questworlds.ratings import Rating

OUT_OF_PHASE = "rules/out_of_phase"
OUT_OF_TURN = "rules/out_of_turn"
TYPED_BY_GM = "dice/typed_by_gm"
BID_TOO_LOW = "rules/bid_too_low"
BID_TOO_HIGH = "rules/bid_too_high"
BAD_RATING = "rules/bad_rating"
BAD_ORDER = "rules/bad_order"
BAD_INTENT = "rules/bad_intent"
BAD_SETUP = "contest/bad_setup"
NO_PROPOSAL = "rules/no_proposal"
NOT_THE_VICTOR = "rules/not_the_victor"
NO_REASON = "rules/no_reason"
BAD_DELTA = "rules/bad_delta"
NO_SUCH_CONTESTANT = "rules/no_such_contestant"
NOT_YOUR_CONTESTANT = "auth/not_your_seat"
# group contests and the options of seed 000
BAD_TARGET = "rules/bad_target"  # a target that is not an opponent still in the contest
NO_TARGET = "rules/no_target"  # no opponent left (or named) to act against
OUT_OF_CONTEST = "rules/out_of_contest"  # a defeated or withdrawn contestant cannot do that
NOT_A_GROUP = "rules/not_a_group"  # a group contest's option asked of a duel
NOT_DELAYED = "rules/not_delayed"
CHANGE_NOT_ALLOWED = "rules/change_not_allowed"
CHANGE_ALREADY_ALLOWED = "rules/change_already_allowed"  # the GM allowed this contestant's change already
NO_GROUP_TIE = "rules/no_group_tie"
NOT_A_PC = "rules/not_a_pc"  # hero points and final actions belong to player characters
STILL_IN = "rules/still_in"  # a final action is for a defeated contestant
DYING = "rules/dying"  # a Dying contestant can take no action
FINAL_ACTION_USED = "rules/final_action_used"
NOT_WITHDRAWN = "rules/not_withdrawn"
SELF_LOAN = "rules/self_loan"
NOT_YOUR_SIDE = "rules/not_your_side"
FOLLOWER_AP = "rules/follower_ap"  # a follower whose AP is already in the total cannot lend or give it
IN_THE_CONTEST = "rules/in_the_contest"  # gifting is for characters not in the contest
SWITCH_IN_ROUND_1 = "rules/switch_in_round_1"  # round 1 is fought with the first ability (seed 000 §5.3.1)

DEFAULT_BID = 3


def parse_rating(text: str, field: str) -> Rating:
    try:
        return Rating.parse(text)
    except ValueError as exc:
        raise Refused(BAD_RATING, f"{field}: {exc}") from None


def check_switch(ability: str | None, rating: str | None) -> None:
    """Switching ability names the new ability and its rating together."""
    if (ability is None) != (rating is None):
        raise Refused(BAD_INTENT, "ability, rating: a switch of ability gives both the ability and its rating")
    if rating is not None:
        parse_rating(rating, "rating")


def check_exchange_switch(ability: str | None, rating: str | None, round: int) -> None:
    """An exchange switches ability only from round 2: the first ability, on which the AP were calculated,
    must be used in round 1 (a simple contest inside the contest may name another ability at any time)."""
    check_switch(ability, rating)
    if ability is not None and round <= 1:
        raise Refused(
            SWITCH_IN_ROUND_1, "ability, rating: round 1 is fought with the first ability; switch from round 2"
        )


def level(name: str) -> Level:
    return Level.from_label(name)


def level_name(value: Level) -> str:
    return value.label
