"""Every event a ruleset's wire module defines has its fold in the ruleset's ``evolve``: a stored event of a kind
``evolve`` had no fold for would stop its contest from loading at all."""

from __future__ import annotations

import importlib
from typing import get_args

import pytest

from protocol.events import Revealed
from server.rulesets import RULESETS


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_event_of_a_ruleset_and_the_reveal_have_a_fold(name: str) -> None:
    wire = importlib.import_module(f"protocol.rulesets.{name}")
    evolve = importlib.import_module(f"server.rules.{name}.evolve")
    assert set(evolve.BY_EVENT) == {*get_args(wire.Event), Revealed}
