"""Opening a QuestWorlds-family contest: who controls which contestant, and each one's starting AP."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.common import Seat
from protocol.errors import Refused
from server.rules.questworlds.ratings import MAX_VALUE, Rating

BAD_SETUP = "contest/bad_setup"
BAD_RATING = "rules/bad_rating"


def parse_rating(text: str, field: str) -> Rating:
    """A rating as written, or Refused naming the field."""
    try:
        return Rating.parse(text)
    except ValueError as exc:
        raise Refused(BAD_RATING, f"{field}: {exc}") from None


def modified_rating(text: str, modifier: int, field: str) -> Rating:
    """A rating as written with its modifiers (augments included) added, or Refused: a modifier is at most
    ±MAX_VALUE, and the rating it gives must be one that can be written (at most ``20W100``), since the
    contest rolls with it for as long as it lasts."""
    rating = parse_rating(text, f"{field}.rating")
    if abs(modifier) > MAX_VALUE:
        raise Refused(BAD_SETUP, f"{field}: a modifier of {modifier:+d} is beyond ±{MAX_VALUE}")
    if rating.value + modifier > MAX_VALUE:
        raise Refused(
            BAD_SETUP,
            f"{field}: {text} {modifier:+d} is above {Rating.from_value(MAX_VALUE)}, the highest rating a contest "
            "can roll with",
        )
    return rating.modified(modifier)


def player_controlled(ids: Sequence[str], seats: Sequence[Seat]) -> set[str]:
    """The contestants a player seat controls (the GM runs the rest); Refused for unknown or doubled ones."""
    if len(set(ids)) != len(ids) or not all(ids):
        raise Refused(BAD_SETUP, "contestants: ids must be distinct and non-empty")
    controlled: set[str] = set()
    for seat in seats:
        for contestant in seat.contestants:
            if contestant not in ids:
                raise Refused(BAD_SETUP, f"seats: {seat.id!r} names no contestant {contestant!r}")
            if seat.role == "player":
                if contestant in controlled:
                    raise Refused(BAD_SETUP, f"seats: {contestant!r} is controlled by two players")
                controlled.add(contestant)
    return controlled


def starting_ap(rating: Rating, followers_ap: int, field: str) -> int:
    """The value of the first ability used (modifiers and augments included) plus the followers' AP."""
    if followers_ap < 0:
        raise Refused(BAD_SETUP, f"{field}: followers' AP is never negative")
    starting = rating.value + followers_ap
    if starting < 1:
        raise Refused(BAD_SETUP, f"{field}: starting AP {starting} is below 1")
    return starting


def bid_limit(ap: int, starting_ap: int, player: bool) -> int:
    """A player may stake up to the larger of current and starting AP; the GM never more than it has."""
    return max(ap, starting_ap) if player else ap
