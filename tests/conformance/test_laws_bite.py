"""The laws of the views and their patches have teeth: a ruleset that writes one wrong op, a message diff that loses
one, views built together that hand one viewer's part to all, or views that follow events but keep a member an
event touched, fail the conformance suite. (A law that cannot fail checks nothing.)"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from protocol.ops import Op, Replace
from protocol.patch import Shared, diff_views
from server.engine.ruleset import Ruleset, Viewer
from server.rulesets import RULESETS
from tests.conformance import test_conformance
from tests.conformance.kit import load
from tests.conformance.test_conformance import machine

SEARCH = settings(
    max_examples=60,
    stateful_step_count=30,
    deadline=None,
    phases=[Phase.generate],  # a failure found is enough: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def fails(rules: Ruleset[Any]) -> bool:
    try:
        run_state_machine_as_test(machine(rules, load(rules.name)), settings=SEARCH)
    except AssertionError:
        return True
    return False


def test_one_wrong_written_op_fails_the_law() -> None:
    """The extended ruleset writes the GM's AP adjustment itself: shift one value of one op it writes."""
    rules = RULESETS["extended"]
    right = rules.view_patches

    def wrong(before: Any, after: Any, event: object, viewers: Sequence[Viewer], root: str) -> list[list[Op]] | None:
        written = right(before, after, event, viewers, root)
        if written is None:
            return None
        for ops in written:
            for i, op in enumerate(ops):
                if isinstance(op, Replace) and isinstance(op.value, int) and not isinstance(op.value, bool):
                    ops[i] = msgspec.structs.replace(op, value=op.value + 1)
                    return written
        return written

    assert fails(dataclasses.replace(rules, view_patches=wrong))


@pytest.mark.parametrize("name", ["extended", "karbon"])
def test_a_message_diff_that_loses_one_op_fails_the_law(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The feeds diff each sight's view as messages (``diff_views``): one that drops the last op of a change
    no longer matches the documents' diff."""

    def lossy(old: msgspec.Struct, new: msgspec.Struct, shared: Shared | None = None) -> list[Op]:
        return diff_views(old, new, shared)[:-1]

    monkeypatch.setattr(test_conformance, "diff_views", lossy)
    assert fails(RULESETS[name])


@pytest.mark.parametrize("name", ["contingency", "scored"])
def test_views_built_together_that_hand_one_viewer_s_part_to_all_fail_the_law(name: str) -> None:
    rules = RULESETS[name]
    assert rules.views is not None

    def alike(state: Any, viewers: Sequence[Viewer]) -> list[Any]:
        return [rules.view(state, viewers[0])] * len(viewers) if viewers else []

    assert fails(dataclasses.replace(rules, views=alike))


@pytest.mark.parametrize("name", sorted(n for n, r in RULESETS.items() if r.follow is not None))
def test_views_that_follow_events_but_forget_one_member_an_event_touched_fail_the_law(name: str) -> None:
    """Each ruleset whose views follow events: a ``touches`` that leaves out one member of those it names keeps
    that member when it should be built again."""
    rules = RULESETS[name]

    def forgetful(before: Any, after: Any, event: object) -> frozenset[str] | None:
        touched = rules.touches(before, after, event)
        return touched if not touched else touched - {min(touched)}

    assert fails(dataclasses.replace(rules, touches=forgetful))
