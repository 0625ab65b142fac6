"""The client's mirror of a view: it applies patches only in order and only when the hash matches."""

from __future__ import annotations

from clients.python.mirror import ContestMirror
from protocol.messages import Patch, Welcome
from protocol.patch import Replace, diff, view_hash

V1 = {"version": 1, "rules": {"phase": "declaring"}}
V2 = {"version": 2, "rules": {"phase": "ready"}}
V3 = {"version": 3, "rules": {"phase": "rolled"}}


def welcome(view: dict[str, object] | None, version: int, of: dict[str, object]) -> Welcome:
    return Welcome(
        contest="c",
        role="player",
        seat="ann",
        contestants=["aria"],
        version=version,
        view_hash=view_hash(of),
        view=view,
    )


def patch(old: dict[str, object], new: dict[str, object], start: int, end: int) -> Patch:
    return Patch(contest="c", from_=start, to=end, ops=diff(old, new), view_hash=view_hash(new))


def test_patches_in_order_keep_the_view() -> None:
    mirror = ContestMirror(contest="c", token="t")
    assert mirror.welcome(welcome(V1, 1, V1))
    assert mirror.patch(patch(V1, V2, 1, 2)) and mirror.patch(patch(V2, V3, 2, 3))
    assert mirror.doc == V3 and mirror.version == 3 and mirror.patches == [(1, 2), (2, 3)]
    assert mirror.rules == {"phase": "rolled"}


def test_a_gap_or_a_wrong_hash_is_a_desync() -> None:
    mirror = ContestMirror(contest="c", token="t")
    mirror.welcome(welcome(V1, 1, V1))
    assert not mirror.patch(patch(V2, V3, 2, 3))  # a gap
    assert mirror.desyncs == 1 and not mirror.in_sync
    assert mirror.patch(patch(V1, V2, 1, 2))  # ignored until a fresh view arrives
    assert mirror.version == 1
    mirror.welcome(welcome(V1, 1, V1))
    wrong = Patch(contest="c", from_=1, to=2, ops=[Replace("/rules/phase", "ready")], view_hash="0" * 16)
    assert not mirror.patch(wrong)
    assert mirror.doc == V1 and mirror.desyncs == 2


def test_an_op_that_does_not_apply_is_a_desync() -> None:
    mirror = ContestMirror(contest="c", token="t")
    mirror.welcome(welcome(V1, 1, V1))
    broken = Patch(contest="c", from_=1, to=2, ops=[Replace("/nowhere/deep", 1)], view_hash=view_hash(V2))
    assert not mirror.patch(broken)


def test_a_resume_must_start_from_the_view_the_client_has() -> None:
    mirror = ContestMirror(contest="c", token="t")
    mirror.welcome(welcome(V1, 1, V1))
    mirror.patch(patch(V1, V2, 1, 2))
    assert mirror.welcome(welcome(None, 2, V2))
    assert mirror.patch(patch(V2, V3, 2, 3))
    assert not mirror.welcome(welcome(None, 2, V2))  # the client is at 3: that base is not its view
    assert not mirror.welcome(welcome({"version": 9}, 9, V1))  # a view that does not match its own hash
