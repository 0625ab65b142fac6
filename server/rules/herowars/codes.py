"""Stable error codes of the herowars ruleset."""

from __future__ import annotations

from server.rules.questworlds.hero_points import HERO_POINT_NO_EFFECT, NO_HERO_POINT
from server.rules.questworlds.setup import BAD_RATING, BAD_SETUP

OUT_OF_PHASE = "rules/out_of_phase"
OUT_OF_TURN = "rules/out_of_turn"
TYPED_BY_GM = "dice/typed_by_gm"
BID_TOO_LOW = "rules/bid_too_low"
BID_TOO_HIGH = "rules/bid_too_high"
BAD_ORDER = "rules/bad_order"
NO_REASON = "rules/no_reason"
BAD_DELTA = "rules/bad_delta"
NO_SUCH_CONTESTANT = "rules/no_such_contestant"
NOT_YOUR_CONTESTANT = "auth/not_your_seat"
BAD_TIE = "rules/bad_tie"

__all__ = ["BAD_RATING", "BAD_SETUP", "HERO_POINT_NO_EFFECT", "NO_HERO_POINT"]

DEFAULT_BID = 3
