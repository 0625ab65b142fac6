"""Stable error codes of the karbon ruleset."""

from __future__ import annotations

OUT_OF_PHASE = "rules/out_of_phase"
NOT_ROUND_WINNER = "rules/not_round_winner"
TOO_MANY_DICE = "rules/too_many_dice"
POOL_EMPTY = "rules/pool_empty"
WRONG_PLACE = "rules/wrong_place"  # a named die is not where the rule takes it from
WRONG_COUNT = "rules/wrong_count"  # the number of dice named is not the number the rule moves
DRAWS_RANDOM = "rules/draws_random"  # dice named where this scene draws at random
NOT_ENOUGH_CHIPS = "rules/not_enough_chips"
TRACK_FULL = "rules/track_full"  # more chips than the victory track leaves room to stack
CHOICE_PENDING = "rules/choice_pending"
BAD_CHOICE = "rules/bad_choice"
NO_PERIL = "rules/no_peril"
NO_WIN_TO_ERASE = "rules/no_win_to_erase"
NOT_UNCLEAR = "rules/not_unclear"
BAD_STATS = "rules/bad_stats"
NO_REASON = "rules/no_reason"
BAD_DELTA = "rules/bad_delta"
TYPED_BY_GM = "dice/typed_by_gm"
BAD_SETUP = "contest/bad_setup"
NOT_YOUR_AGENT = "auth/not_your_seat"
