"""The audit of a log finds the first altered event: chain, commitments, dice, fold."""

from __future__ import annotations

import msgspec

from protocol.events import (
    CloseDeclarations,
    Conclude,
    Declare,
    Declared,
    Envelope,
    Redo,
    Revealed,
    RevealEntry,
    Rewind,
    Undo,
)
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


def swapping(first: str, then: str) -> Table:
    """Ann declares ``first``, the GM adjusts AP, Ann replaces it with ``then``, the GM adjusts again."""
    table = Table(duel())
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action=first, bid=1)))
    table.do(GM, x.Adjust(contestant="orc", delta=-1, reason="a slip"))
    table.do(ANN, Declare(participant="aria", payload=x.Intent(action=then, bid=2)))
    table.do(GM, x.Adjust(contestant="orc", delta=-1, reason="another slip"))
    return table


def revealed(table: Table) -> dict[str, str]:
    """The actions of the contest's last reveal, by participant."""
    reveal = next(e.event for e in reversed(table.log) if isinstance(e.event, Revealed))
    assert isinstance(reveal, Revealed)
    return {entry.participant: entry.payload.action for entry in reveal.entries}  # type: ignore[union-attr]


def test_a_reveal_after_an_undo_publishes_the_declaration_the_undo_left_and_passes() -> None:
    table = swapping("feint", "charge")
    table.do(GM, Undo())  # back to the first adjustment: the feint is Ann's declaration again
    table.do(GM, CloseDeclarations())
    assert revealed(table) == {"aria": "feint"}
    assert audit(table.log, ruleset).finding is None


def test_a_reveal_after_a_rewind_publishes_the_declaration_the_rewind_left_and_passes() -> None:
    table = swapping("feint", "charge")
    first_adjustment = next(e.version for e in table.log if isinstance(e.event, x.ApAdjusted))
    table.do(GM, Rewind(to_version=first_adjustment))
    table.do(GM, CloseDeclarations())
    assert revealed(table) == {"aria": "feint"}
    assert audit(table.log, ruleset).finding is None


def test_a_reveal_after_an_undo_and_a_redo_publishes_the_redone_declaration_and_passes() -> None:
    table = swapping("feint", "charge")
    table.do(GM, Undo())
    table.do(GM, Redo())
    table.do(GM, CloseDeclarations())
    assert revealed(table) == {"aria": "charge"}
    assert audit(table.log, ruleset).finding is None


def test_a_reveal_after_two_undos_and_a_redo_publishes_the_first_declaration_and_passes() -> None:
    table = swapping("feint", "charge")
    table.do(GM, Undo())  # the charge is undone
    table.do(GM, Undo())  # and the feint
    table.do(GM, Redo())  # the feint is back, the charge is not
    table.do(GM, CloseDeclarations())
    assert revealed(table) == {"aria": "feint"}
    assert audit(table.log, ruleset).finding is None


def forged_reveal(table: Table, entries: list[RevealEntry]) -> list[Envelope]:
    """The table's log with its last reveal publishing ``entries`` instead, re-chained as a careful forger would."""
    log = list(table.log)
    i = max(i for i, e in enumerate(log) if isinstance(e.event, Revealed))
    reveal = log[i].event
    assert isinstance(reveal, Revealed)
    log[i] = sealed(msgspec.structs.replace(log[i], event=msgspec.structs.replace(reveal, entries=entries)))
    for j in range(i + 1, len(log)):
        log[j] = sealed(msgspec.structs.replace(log[j], prev_hash=log[j - 1].hash))
    return log


def test_a_reveal_of_an_undone_declaration_is_named() -> None:
    table = swapping("feint", "charge")
    table.do(GM, Undo())
    table.do(GM, CloseDeclarations())
    charge = [e.event for e in table.log if isinstance(e.event, Declared)][-1]
    assert charge.payload is not None and charge.salt is not None
    entry = RevealEntry(participant="aria", payload=charge.payload, salt=charge.salt, commitment=charge.commitment)
    finding = audit(forged_reveal(table, [entry]), ruleset).finding
    assert finding is not None and finding.version == len(table.log)
    assert finding.problem == "'aria' revealed something it never declared"


def test_a_reveal_that_leaves_out_a_declaration_is_named() -> None:
    table = swapping("feint", "charge")
    table.do(GM, CloseDeclarations())
    finding = audit(forged_reveal(table, []), ruleset).finding
    assert finding is not None and finding.version == len(table.log)
    assert finding.problem == "the reveal leaves out the declaration of 'aria'"
