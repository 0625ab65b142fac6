"""Invariants of the engine over random contests: determinism, snapshots, undo, rewind, secrecy."""

from __future__ import annotations

import contextlib
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import encode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import CloseDeclarations, Command, Declare, Redo, Rewind, Undo
from protocol.rulesets import extended as x
from server.engine.contest import Contest, fold, rewind_targets, trimmed, undo_target
from server.engine.views import contest_view, viewer_for
from server.rules.extended.state import ExtendedState
from tests.engine.table import ANN, BOB, GM, RULES, SEED, SPECTATOR, Table, duel

ACTORS = {"aria": ANN, "orc": BOB}
SECRET = "sealed-"


def commands(table: Table, draw: st.DrawFn, with_control: bool) -> tuple[Actor, Command]:
    """One plausible command for the contest's current phase (it may still be refused)."""
    rules = table.rules
    options: list[tuple[Actor, Command]] = []
    if rules.phase == "declaring":
        for contestant in rules.order:
            bid = draw(st.none() | st.integers(1, 12))
            action = f"{SECRET}{table.contest.version}-{contestant}"
            kind = draw(st.sampled_from(["normal", "normal", "asymmetrical", "unrelated"]))
            options.append((ACTORS[contestant], Declare(participant=contestant, payload=x.Intent(action, bid, kind))))
        options.append((GM, CloseDeclarations()))
    if rules.phase == "ready" or rules.actor is not None:
        faces = [draw(st.integers(1, 20)), draw(st.integers(1, 20))]
        options.append((GM, x.Roll(faces=None if table.request.dice == "server" else faces)))
    if rules.phase == "rolled":
        for contestant in rules.exchange.eligible:
            spend = draw(st.booleans())
            command = x.SpendHeroPoint(contestant) if spend else x.PassHeroPoint(contestant)
            options.append((ACTORS[contestant], command))
        options.append((GM, x.Confirm()))
    if rules.phase == "decided" and rules.outcome.winner is not None:
        options.append((ACTORS[rules.outcome.winner], x.PartingShot(rules.outcome.winner, bid=draw(st.integers(1, 5)))))
    options.append((GM, x.Adjust(draw(st.sampled_from(["aria", "orc"])), draw(st.integers(-6, 6)), "fudge")))
    if with_control:
        options += [(GM, Undo()), (GM, Redo())]
        targets = rewind_targets(table.contest)
        if targets:
            options.append((GM, Rewind(to_version=draw(st.sampled_from(targets)))))
    return draw(st.sampled_from(options))


def play(draw: st.DrawFn, dice: str, steps: int, with_control: bool) -> Table:
    table = Table(duel(dice=dice, pvp=True, hero_points=draw(st.integers(0, 2))))
    for _ in range(steps):
        actor, command = commands(table, draw, with_control)
        with contextlib.suppress(Refused):
            table.do(actor, command)
    return table


def state_bytes(contest: Contest[Any]) -> bytes:
    return encode([contest.rules, contest.declared, contest.history])


@st.composite
def contests(draw: st.DrawFn, with_control: bool = True, dice: str = "physical") -> Table:
    return play(draw, dice, draw(st.integers(0, 40)), with_control)


FAST = settings(max_examples=60)


@FAST
@given(contests(), st.data())
def test_folding_any_prefix_twice_gives_the_same_state(table: Table, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, len(table.log)))
    first, second = fold(RULES, table.log[:k]), fold(RULES, table.log[:k])
    assert encode(first) == encode(second)


@FAST
@given(contests(), st.data())
def test_snapshot_plus_tail_equals_the_full_fold(table: Table, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, len(table.log)))
    snapshot = msgspec.json.decode(encode(fold(RULES, table.log[:k])), type=Contest[ExtendedState])
    assert encode(fold(RULES, table.log[k:], snapshot)) == encode(fold(RULES, table.log))


@FAST
@given(contests())
def test_undo_then_redo_changes_nothing(table: Table) -> None:
    before = state_bytes(table.contest)
    try:
        table.do(GM, Undo())
    except Refused:
        return
    assert state_bytes(table.contest) != before or not table.contest.history
    table.do(GM, Redo())
    assert state_bytes(table.contest) == before


@FAST
@given(contests(with_control=False), st.data())
def test_rewind_to_v_gives_the_state_at_v(table: Table, data: st.DataObject) -> None:
    targets = rewind_targets(table.contest)
    if not targets:
        return
    v = data.draw(st.sampled_from(targets))
    table.do(GM, Rewind(to_version=v))
    at_v = fold(RULES, table.log[:v])
    assert encode([table.contest.rules, table.contest.declared]) == encode([at_v.rules, at_v.declared])


def _changed(contest: Contest[Any], contestant: str) -> bool:
    """Independently of the views: has this contestant's AP moved in the effective history?"""
    for step in contest.history:
        event = step.event
        if isinstance(event, x.ExchangeApplied) and (
            (event.loser == contestant and event.lost) or (event.winner == contestant and event.gained)
        ):
            return True
        if isinstance(event, x.ApAdjusted) and event.contestant == contestant:
            return True
    return False


@settings(max_examples=40)
@given(contests(dice="server"), st.data())
def test_no_view_shows_a_sealed_payload_a_hidden_ap_or_the_seed(table: Table, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, len(table.log)))
    contest = fold(RULES, table.log[:k])
    sealed = [d.payload.action for d in contest.declared.values() if d.payload is not None]
    for actor, own in [(ANN, "aria"), (BOB, "orc"), (SPECTATOR, None)]:
        view = contest_view(RULES, contest, viewer_for(actor, contest.created.seats))
        raw = encode(view)
        for action in sealed:
            if own is None or not action.endswith(own):
                assert action.encode() not in raw
        assert SEED.hex().encode() not in raw
        for seen in view.rules.contestants:
            if seen.id != own:
                assert seen.rating is None and seen.starting_ap is None and seen.hero_points is None
                if not _changed(contest, seen.id):
                    assert seen.ap is None


def _scanned_undo_target(contest: Contest[Any]) -> int | None:
    """The definition: the newest checkpoint before the effective head, found by reading every step."""
    steps = contest.steps()
    head = steps[-1].version if steps else 1
    earlier = [s.version for s in steps if s.checkpoint and s.version < head]
    return earlier[-1] if earlier else None


@FAST
@given(contests())
def test_the_tracked_undo_target_is_the_newest_checkpoint_before_the_head(table: Table) -> None:
    for k in range(1, len(table.log) + 1):
        contest = fold(RULES, table.log[:k])
        assert undo_target(contest) == _scanned_undo_target(contest)


@FAST
@given(contests(), st.data())
def test_folding_on_from_an_older_state_leaves_every_state_as_it_was(table: Table, data: st.DataObject) -> None:
    """Folding shares its growing containers between states: folding again from an older state (a resume,
    a second reader of the same snapshot) must neither change the newer state nor see its events."""
    n = len(table.log)
    k = data.draw(st.integers(1, n))
    j = data.draw(st.integers(k, n))
    older = fold(RULES, table.log[:k])
    older_bytes = encode(trimmed(older))
    newer = fold(RULES, table.log[k:], older)  # extends the shared containers in place
    again = fold(RULES, table.log[k:j], older)  # from the older state once more
    assert encode(trimmed(older)) == older_bytes
    assert encode(trimmed(again)) == encode(trimmed(fold(RULES, table.log[:j])))
    assert encode(trimmed(newer)) == encode(trimmed(fold(RULES, table.log)))
    for envelope in table.log[k:]:
        assert older.command_version(envelope.actor.principal, envelope.command_id) is None or any(
            e.command_id == envelope.command_id and e.actor == envelope.actor for e in table.log[:k]
        )
