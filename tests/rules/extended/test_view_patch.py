"""The patch the extended ruleset writes for a GM's AP adjustment, sent instead of the engine's diff of the views:
each viewer's view with the patch applied is the view built after the adjustment, hidden AP stays hidden, and
the adjustments it does not write are left to the diff."""

from __future__ import annotations

from typing import Any

from protocol.codec import canonical
from protocol.common import Actor
from protocol.events import Command, Envelope
from protocol.ops import Add, Op, Remove, Replace
from protocol.patch import apply
from protocol.rulesets import extended as x
from server.engine.contest import Contest
from server.engine.views import viewer_for, written_patches
from server.feed.views import view_doc
from server.rules.extended.ruleset import EXTENDED
from tests.engine.table import ANN, BOB, GM, SPECTATOR, Table, duel

EVERYONE = [GM, ANN, BOB, SPECTATOR]


def written(table: Table, command: Command, actor: Actor = GM) -> dict[str, list[Op] | None]:
    """Each viewer's patch as the ruleset writes it for the command (None where it leaves it to the diff), each
    checked to turn that viewer's view before into its view after."""
    before = table.contest
    batch = table.do(actor, command)
    return patches_for(before, table.contest, batch)


def patches_for(before: Contest[Any], after: Contest[Any], batch: list[Envelope]) -> dict[str, list[Op] | None]:
    pairs, rules = [], before.rules
    for envelope in batch:
        pairs.append((envelope, rules))
        rules = EXTENDED.evolve(rules, envelope.event)
    viewers = [viewer_for(actor, after.created.seats) for actor in EVERYONE]
    patches = written_patches(EXTENDED, before, after, pairs, viewers)
    if patches is None:
        return dict.fromkeys((actor.principal for actor in EVERYONE), None)
    for viewer, ops in zip(viewers, patches, strict=True):
        old, new = view_doc(EXTENDED, before, viewer), view_doc(EXTENDED, after, viewer)
        assert canonical(apply(old, ops)) == canonical(new), f"{viewer.principal}: {ops}"
    return {actor.principal: ops for actor, ops in zip(EVERYONE, patches, strict=True)}


def adjust(contestant: str, delta: int) -> x.Adjust:
    return x.Adjust(contestant=contestant, delta=delta, reason="test")


def chart_ops(ops: list[Op] | None) -> list[tuple[str, str, Any]]:
    assert ops is not None
    return sorted((type(op).__name__, op.path, getattr(op, "value", "-")) for op in ops if "/chart/" in op.path)


def test_an_adjustment_moves_the_ap_and_adds_a_newest_point_to_the_chart_hidden_where_the_ap_is() -> None:
    table = Table(duel(pvp=True))  # Ann's Aria (15) against Bob's orc (12); nobody's AP has changed yet
    patches = written(table, adjust("orc", -2))
    assert Replace(path="/rules/contestants/1/ap", value=10) in (patches["gm"] or [])
    # the orc's AP is known to everyone once it has changed; Aria's is still Ann's and the GM's
    assert chart_ops(patches["spectator"]) == [
        ("Add", "/rules/chart/adjusted/-", True),
        ("Add", "/rules/chart/ap/aria/-", None),
        ("Add", "/rules/chart/ap/orc/-", 10),
        ("Add", "/rules/chart/exchange/-", 0),
    ]
    assert ("Add", "/rules/chart/ap/aria/-", 15) in chart_ops(patches["ann"])
    assert Replace(path="/rules/contestants/1/ap", value=10) in (patches["spectator"] or [])


def test_an_adjustment_back_to_the_charts_newest_point_drops_the_point_it_had_added() -> None:
    table = Table(duel(pvp=True))
    table.do(GM, adjust("orc", -2))
    patches = written(table, adjust("orc", 2))
    for who in ("gm", "ann", "bob", "spectator"):
        assert sorted(op.path for op in patches[who] or [] if isinstance(op, Remove)) == [
            "/rules/chart/adjusted/1",
            "/rules/chart/ap/aria/1",
            "/rules/chart/ap/orc/1",
            "/rules/chart/exchange/1",
        ], who


def test_a_second_adjustment_between_exchanges_changes_the_newest_point() -> None:
    table = Table(duel(pvp=True))
    table.do(GM, adjust("orc", -2))
    patches = written(table, adjust("aria", 3))
    assert chart_ops(patches["gm"]) == [("Replace", "/rules/chart/ap/aria/1", 18)]
    assert chart_ops(patches["bob"]) == [("Replace", "/rules/chart/ap/aria/1", 18)]  # Aria's AP is known now
    assert not any(isinstance(op, Add) for op in patches["bob"] or [])


def test_an_adjustment_that_takes_a_contestant_out_or_brings_it_back_is_left_to_the_diff() -> None:
    table = Table(duel(pvp=True))
    assert set(written(table, adjust("orc", -12)).values()) == {None}  # who acts next may change
    assert set(written(table, adjust("orc", 1)).values()) == {None}
    assert all(ops is not None for ops in written(table, adjust("orc", 1)).values())


def test_other_events_are_left_to_the_diff() -> None:
    table = Table(duel(pvp=True))
    assert set(written(table, x.GrantHeroPoints(contestant="aria", points=1, reason="test")).values()) == {None}
