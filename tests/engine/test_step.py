"""The engine's one step: a command against a contest becomes one decision — a repeat, a stale link, a need
for the history, or the batch to append with the contest after it — and a refusal changes nothing."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from protocol.codec import encode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import Command, Declare, Declared, ReissueSeat, Undo, Undone
from protocol.rulesets import extended as x
from server.engine.chain import GENESIS, envelope_hash
from server.engine.commitment import commit
from server.engine.contest import Contest, fold, restored, trimmed
from server.engine.step import Decided, NeedsHistory, Repeated, StaleLink, draws_salt, opening, step
from tests.engine.table import ANN, BOB, GM, RULES, SEED, Table, duel

NOW = "2026-03-01T20:00:00.000+00:00"
SALT = "5a" * 16
ADJUST = x.Adjust(contestant="aria", delta=1, reason="a lucky find")


def decide(contest: Contest[Any], actor: Actor, command: Command, command_id: str = "c1", **inputs: Any) -> Any:
    inputs = {"now": NOW, "seed": None, "salt": SALT, **inputs}
    return step(RULES, contest, actor, command_id, command, **inputs)


def decided(
    contest: Contest[Any], actor: Actor, command: Command, command_id: str = "c1", **inputs: Any
) -> Decided[Any]:
    decision = decide(contest, actor, command, command_id, **inputs)
    assert isinstance(decision, Decided), decision
    return decision


def exchange_rolled() -> Table:
    """Aria and Bob's orc declare and the GM rolls: one exchange played, a checkpoint to undo to."""
    table = Table(duel(hero_points=0, pvp=True))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action="feint", bid=3)))
    table.do(BOB, Declare(participant="orc", payload=x.Intent(action="swing", bid=2)))
    table.do(GM, x.Roll(faces=[2, 15]))
    return table


def test_a_decided_command_chains_onto_the_head_and_its_contest_is_the_fold_of_its_events() -> None:
    table = Table()
    before = table.contest
    decision = decided(before, GM, ADJUST)
    envelopes = decision.envelopes
    assert [e.version for e in envelopes] == list(range(before.version + 1, before.version + 1 + len(envelopes)))
    assert [e.prev_hash for e in envelopes] == [before.head_hash, *(e.hash for e in envelopes[:-1])]
    assert all(e.hash == envelope_hash(e) for e in envelopes)
    assert {(e.command_id, e.actor, e.at) for e in envelopes} == {("c1", GM, NOW)}
    assert envelopes[-1].batch_end and decision.version == envelopes[-1].version
    after = decision.after
    assert after.version == decision.version and after.head_hash == envelopes[-1].hash
    assert after.rules.fighters["aria"].ap == before.rules.fighters["aria"].ap + 1
    assert encode(after) == encode(fold(RULES, envelopes, before))
    assert before.version == envelopes[0].version - 1 and before.command_version("gm", "c1") is None  # unchanged


def test_a_repeated_command_answers_its_first_version_without_new_events() -> None:
    table = Table()
    first = decided(table.contest, GM, ADJUST, "lucky")
    again = decide(first.after, GM, ADJUST, "lucky", now="later")
    assert again == Repeated(first.version)
    # the same command id from someone else is a command of its own
    assert isinstance(decide(first.after, Actor("gm2", "gm"), ADJUST, "lucky"), Decided)


def test_a_link_of_another_generation_is_stale_and_the_new_one_acts() -> None:
    table = Table()
    table.do(GM, ReissueSeat(seat="ann"))
    intent = Declare(participant="aria", payload=x.Intent(action="feint", bid=3))
    assert decide(table.contest, ANN, intent, generation=0) == StaleLink(honoured=1)
    assert decide(table.contest, ANN, intent, generation=2) == StaleLink(honoured=1)  # newer than folded here
    assert isinstance(decide(table.contest, ANN, intent, generation=1), Decided)
    assert isinstance(decide(table.contest, ANN, intent), Decided)  # no link: a GM-side or test caller


def test_a_refused_command_changes_nothing() -> None:
    table = exchange_rolled()
    before = table.contest
    encoded = encode(before)
    refusals: list[tuple[Actor, Command, str]] = [
        (ANN, Undo(), "auth/forbidden"),
        (GM, x.Adjust(contestant="nobody", delta=1, reason="r"), "rules/no_such_contestant"),
        (ANN, Declare(participant="aria", payload=x.Intent(action="again", bid=1)), "seal/no_window"),
    ]
    for actor, command, code in refusals:
        with pytest.raises(Refused) as refused:
            decide(before, actor, command)
        assert refused.value.code == code
    assert encode(before) == encoded and table.contest is before
    assert isinstance(decide(before, GM, Undo()), Decided)  # the contest still decides as before


def test_undo_on_a_contest_restored_from_a_snapshot_needs_its_history() -> None:
    table = exchange_rolled()
    from_snapshot = restored(trimmed(table.contest))
    assert decide(from_snapshot, GM, Undo()) == NeedsHistory()
    assert isinstance(decide(from_snapshot, GM, ADJUST), Decided)  # other commands need none of it
    undone = decided(table.contest, GM, Undo())
    assert isinstance(undone.envelopes[0].event, Undone)
    assert undone.after.rules.fighters["orc"].ap == 12  # the exchange no longer counts


def test_the_same_inputs_decide_the_same_and_the_dice_and_salt_are_the_ones_given() -> None:
    table = Table(duel(dice="server", hero_points=0))
    intent = Declare(participant="aria", payload=x.Intent(action="feint", bid=3))
    assert draws_salt(intent) and not draws_salt(ADJUST)
    once = decided(table.contest, ANN, intent, seed=SEED)
    assert decided(table.contest, ANN, intent, seed=SEED).envelopes == once.envelopes
    declared = once.envelopes[0].event
    assert isinstance(declared, Declared) and declared.salt == SALT
    assert declared.commitment == commit(SALT, intent.payload)
    table.do(ANN, intent)
    table.do(GM, Declare(participant="orc", payload=x.Intent(action="swing", bid=2)))
    rolled = decided(table.contest, GM, x.Roll(), seed=SEED)
    assert decided(table.contest, GM, x.Roll(), seed=SEED).envelopes == rolled.envelopes
    with pytest.raises(ValueError):
        decide(table.contest, GM, x.Roll(), seed=None)  # server dice need their seed


def test_the_opening_batch_starts_the_chain_and_its_contest_is_the_fold_of_it() -> None:
    opened = opening(RULES, "duel", duel(), GM, "create", now=NOW, seed_hash=None)
    assert opened.envelopes[0].prev_hash == GENESIS and opened.envelopes[0].version == 1
    assert opened.version == len(opened.envelopes) and opened.envelopes[-1].batch_end
    assert encode(opened.after) == encode(fold(RULES, opened.envelopes))
    assert opened.after.command_version("gm", "create") == opened.version
    with pytest.raises(Refused):
        opening(RULES, "duel", msgspec.structs.replace(duel(), seats=[]), GM, "create", now=NOW, seed_hash=None)
