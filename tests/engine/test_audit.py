"""The audit of a log finds the first altered event: chain, commitments, dice, fold."""

from __future__ import annotations

import msgspec

from protocol.events import Conclude, Declare, Declared
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.engine.chain import sealed
from server.rulesets import ruleset
from tests.engine.table import ANN, GM, Table, duel


def played(dice: str = "server") -> Table:
    table = Table(duel(dice=dice, hero_points=0))
    table.declare(x.Intent(action="feint", bid=2), x.Intent(action="charge", bid=2))
    table.do(GM, x.Roll(faces=None if dice == "server" else [4, 9]))
    table.stand()
    table.do(GM, x.Roll(faces=None if dice == "server" else [4, 9]))
    table.stand()
    table.do(ANN, Declare(participant="aria", payload=x.Intent(bid=1)))
    table.do(GM, Conclude())
    return table


def test_an_honest_log_passes_with_every_die_checked() -> None:
    report = audit(played().log, ruleset)
    assert report.finding is None and report.rolls_checked == 4 and not report.dice_unchecked


def test_dice_stay_unchecked_until_the_seed_is_revealed() -> None:
    log = played().log[:-1]  # not concluded: no seed
    report = audit(log, ruleset)
    assert report.finding is None and report.dice_unchecked


def test_an_altered_event_breaks_the_chain_at_that_event() -> None:
    log = played().log
    log[4] = msgspec.structs.replace(log[4], at="forged")
    assert str(audit(log, ruleset).finding).startswith("event 5: hash mismatch")


def test_a_resealed_forgery_is_still_caught_by_its_successor() -> None:
    log = played().log
    log[4] = sealed(msgspec.structs.replace(log[4], at="forged"))
    assert str(audit(log, ruleset).finding).startswith("event 6: prev_hash")


def test_a_broken_commitment_is_named() -> None:
    log = played().log
    i = next(i for i, e in enumerate(log) if isinstance(e.event, Declared))
    event = log[i].event
    assert isinstance(event, Declared)
    forged = msgspec.structs.replace(event, payload=x.Intent(action="something else", bid=2))
    log[i] = sealed(msgspec.structs.replace(log[i], event=forged))
    for j in range(i + 1, len(log)):  # re-chain everything after, as a careful forger would
        log[j] = sealed(msgspec.structs.replace(log[j], prev_hash=log[j - 1].hash))
    assert audit(log, ruleset).finding is not None
    assert audit(log, ruleset).finding.version == i + 1  # type: ignore[union-attr]
    assert "commitment" in audit(log, ruleset).finding.problem  # type: ignore[union-attr]


def test_forged_server_dice_are_named() -> None:
    log = played().log
    i = next(i for i, e in enumerate(log) if isinstance(e.event, x.ExchangeRolled))
    event = log[i].event
    assert isinstance(event, x.ExchangeRolled) and event.dice is not None
    dice = msgspec.structs.replace(event.dice, faces=[1, 20] if event.dice.faces != [1, 20] else [2, 20])
    log[i] = sealed(msgspec.structs.replace(log[i], event=msgspec.structs.replace(event, dice=dice)))
    for j in range(i + 1, len(log)):
        log[j] = sealed(msgspec.structs.replace(log[j], prev_hash=log[j - 1].hash))
    finding = audit(log, ruleset).finding
    assert finding is not None and finding.version == i + 1 and "dice" in finding.problem
