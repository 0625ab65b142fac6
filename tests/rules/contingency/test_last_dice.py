"""A resolved roll keeps the sizes of its dice in every view (``last_sides``), so a page draws each die by its
shape after the penalty is taken; and every view says which dice each attribute and skill rolls."""

from __future__ import annotations

import msgspec
import pytest

from protocol.rulesets import contingency as c
from tests.rules.contingency.table import ANN, GM, SPECTATOR
from tests.rules.contingency.test_dice_sizes import _table


def test_the_last_roll_keeps_the_sizes_of_its_dice_for_everyone() -> None:
    table = _table()
    assert all(table.view(a).rules.last_sides == [] for a in (GM, ANN, SPECTATOR))
    table.do(ANN, c.Roll(faces=[8, 6, 12]))  # the Reposition, with Agility and Mobility: d8, d6, d12
    for actor in (GM, ANN, SPECTATOR):
        view = table.view(actor).rules
        assert view.last is not None and view.last.faces == [8, 6, 12]
        assert view.last_sides == [8, 6, 12]
        shawn = next(ch for ch in view.characters if ch.id == "shawn")
        assert shawn.skill_dice == {"Agility/Mobility": [8, 6, 12], "Might/Athletics": [4, 4, 6]}
    table.do(ANN, c.Roll(faces=[10, 9, 1]))  # the Strike: the default d10s, −2 taken off the dice
    assert table.view(SPECTATOR).rules.last_sides == [8, 6, 12]  # the Strike waits for its penalty
    table.do(ANN, c.TakePenalty(reductions=[2, 0, 0]))
    assert table.view(SPECTATOR).rules.last_sides == [10, 10, 10]


def test_a_state_stored_before_it_kept_the_sizes_is_not_read_from_a_snapshot() -> None:
    """A snapshot is a cache: one written before the state kept ``last_sides`` fails to decode, and the service
    folds the encounter again from its log."""
    state = _table().state
    stored = msgspec.json.decode(msgspec.json.encode(state))
    del stored["last_sides"]
    with pytest.raises(msgspec.ValidationError, match="last_sides"):
        msgspec.json.decode(msgspec.json.encode(stored), type=type(state))
