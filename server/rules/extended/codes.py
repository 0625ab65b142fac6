"""Stable error codes of the extended ruleset, and small checks shared by its decisions."""

from __future__ import annotations

from protocol.errors import Refused
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
NO_HERO_POINT = "rules/no_hero_point"
HERO_POINT_NO_EFFECT = "rules/hero_point_no_effect"
NOT_THE_VICTOR = "rules/not_the_victor"
NO_REASON = "rules/no_reason"
BAD_DELTA = "rules/bad_delta"
NO_SUCH_CONTESTANT = "rules/no_such_contestant"
NOT_YOUR_CONTESTANT = "auth/not_your_seat"

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


def level(name: str) -> Level:
    return Level.from_label(name)


def level_name(value: Level) -> str:
    return value.label
