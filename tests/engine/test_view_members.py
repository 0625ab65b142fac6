"""A ruleset's view made member by member: views that follow events, and what sights share."""

from __future__ import annotations

import msgspec

from server.engine.ruleset import Viewer
from server.engine.view_members import ViewMembers


class Board(msgspec.Struct, frozen=True):
    score: int
    zones: tuple[str, ...]


class BoardView(msgspec.Struct, frozen=True):
    score: int
    zones: list[str]


SHARED: ViewMembers[Board, BoardView] = ViewMembers(
    state_type=Board,
    view_type=BoardView,
    shared={"score": lambda s: s.score, "zones": lambda s: list(s.zones)},
    own={},
    reads={"score": ("score",), "zones": ("zones",)},
)
"""A view every sight sees alike (as Karbon's): no member differs by sight."""

VIEWERS = [Viewer("gm", "gm"), Viewer("ann", "player", frozenset({"aria"})), Viewer("sam", "spectator")]


def test_sights_that_see_alike_follow_an_event_into_one_view_though_their_views_were_built_apart() -> None:
    zones = ("ford", "ridge")
    before, after = Board(score=1, zones=zones), Board(score=2, zones=zones)
    kept = [SHARED.view(before, viewer) for viewer in VIEWERS]  # each welcome builds its sight's view on its own
    assert len({id(view) for view in kept}) == len(VIEWERS)

    followed = SHARED.follow(after, VIEWERS, kept, SHARED.touches(before, after, None))

    assert followed == SHARED.views(after, VIEWERS)
    assert all(view is followed[0] for view in followed)  # built and encoded once, not once a sight
    assert followed[0].zones is kept[0].zones  # what the event did not touch is kept, not built again


def test_a_view_every_sight_sees_alike_is_built_once_for_all_of_them() -> None:
    views = SHARED.views(Board(score=3, zones=("ridge",)), VIEWERS)
    assert views == [BoardView(score=3, zones=["ridge"])] * len(VIEWERS)
    assert all(view is views[0] for view in views)
