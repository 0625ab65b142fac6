"""The conformance suite catches a broken ruleset: it is not a suite that cannot fail."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from protocol.errors import Refused
from server.engine.ruleset import Context, Ruleset, Viewer
from server.rules.herowars.ruleset import HEROWARS
from server.rules.herowars.view import view
from tests.conformance.kit import load
from tests.conformance.test_conformance import check_states_untracked, check_types, machine

FEW = settings(
    max_examples=100,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.generate],  # finding the fault is the point; shrinking it would only take time
    report_multiple_bugs=False,
)


def broken(**changes: Any) -> Ruleset[Any]:
    """Hero Wars with its view replaced: built by ``view`` alone, viewer by viewer (never followed)."""
    return dataclasses.replace(HEROWARS, **{"views": None, "follow": None, **changes})


def test_a_view_that_shows_every_rating_to_everyone_fails() -> None:
    leaky = broken(view=lambda state, viewer: view(state, Viewer(viewer.principal, "gm")))
    with pytest.raises(AssertionError, match="sees hidden"):
        run_state_machine_as_test(machine(leaky, load("herowars")), settings=FEW)


def test_a_view_that_depends_on_who_the_viewer_is_fails() -> None:
    personal = broken(view=lambda state, viewer: msgspec.structs.replace(view(state, viewer), prize=viewer.principal))
    with pytest.raises(AssertionError, match="see one sight"):
        run_state_machine_as_test(machine(personal, load("herowars")), settings=FEW)


def test_a_state_the_collector_tracks_fails() -> None:
    class Tracked(msgspec.Struct, frozen=True):
        fighters: dict[str, int]

    with pytest.raises(AssertionError, match="Tracked is tracked by the collector"):
        check_states_untracked(broken(state_type=Tracked))


def test_a_refusal_that_changes_the_state_fails() -> None:
    def decide(state: Any, command: Any, ctx: Context) -> Any:
        events = HEROWARS.decide(state, command, ctx)
        if not ctx.is_gm:
            state.intents["meddled"] = state.intents.get("erik")
            raise Refused("rules/out_of_phase", "refused after meddling")
        return events

    with pytest.raises(AssertionError, match="changed the state"):
        run_state_machine_as_test(machine(broken(decide=decide), load("herowars")), settings=FEW)


def test_a_ruleset_that_does_not_name_its_commands_fails() -> None:
    with pytest.raises(AssertionError, match="command"):
        check_types(broken(command_type=object))


def test_a_ruleset_without_a_strategy_module_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        load("no_such_ruleset")
