"""No command costs more than a frame's budget, whatever an anonymous creator sets up (docs/security.md).

Each ruleset's most expensive commands are played at its table limits — the most contestants, each played from
a seat of its own, every text at its longest — and cost what the server pays for them: the decision, the append,
the fold, and for every sight following (each seat, the GM, an auditor and a spectator) building, encoding and
diffing its view (``tests.costly``). The limits themselves are refused one past them: at decoding with
``protocol/bad_field`` naming the field, or by the rules — a new contest's setup when it is created, never a
stored contest when it is folded (one stored under the wider limits of earlier releases still loads).
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from protocol import errors
from protocol.codec import decode, decode_untrusted, encode, to_builtins
from protocol.common import MAX_CONTESTANTS, MAX_LISTED
from protocol.common import SPECTATOR as SPECTATOR_ID
from protocol.errors import Refused
from protocol.events import ContestCreated, CreateContest, Declare, Envelope
from protocol.messages import ClientMessage
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import scored as s
from server.engine import handle
from server.engine.audit import audit
from server.engine.contest import fold
from server.engine.ruleset import Viewer
from server.engine.views import contest_view, viewer_for
from server.rules.contingency import codes, skill
from server.rules.scored.view import view as scored_view
from server.rulesets import ruleset as ruleset_named
from tests.costly import BUDGET, WORST_CASES, contingency_request, extended_request, measure_ruleset, scored_request
from tests.engine.table import GM
from tests.rules.contingency.table import ANN, Table, encounter, line
from tests.rules.scored.table import Table as ScoredTable
from tests.rules.scored.table import heroes


@pytest.mark.parametrize("ruleset", list(WORST_CASES))
async def test_every_costly_command_at_the_table_limits_costs_less_than_a_frames_budget(ruleset: str) -> None:
    rows = await measure_ruleset(ruleset)
    assert len(rows) >= 4
    over = [f"{row.command}: {row.cpu:.3f} s" for row in rows if row.cpu >= BUDGET]
    assert not over, f"{ruleset} at its table limits: over {BUDGET} s of CPU: {over}"


# --- one past each limit --------------------------------------------------------------------------------------


def _create(request: Any) -> dict[str, Any]:
    return {"type": "create", "id": "c1", "contest": to_builtins(request)}


def _command(command: Any) -> dict[str, Any]:
    return {"type": "command", "id": "c1", "contest": "x", "command": to_builtins(command)}


_ZONE = c.Zone(id="z", name="Z")
PAST = [
    ("contestants", _create(extended_request(contestants=MAX_LISTED + 1, followers=0, seats=1))),
    ("followers", _create(extended_request(contestants=2, followers=MAX_LISTED + 1, seats=1))),
    ("contestants", _create(scored_request(contestants=MAX_LISTED + 1, seats=1))),
    ("targets", _command(Declare(participant="a", payload=x.Intent(targets=["b"] * (MAX_LISTED + 1))))),
    ("order", _command(x.SetOrder(order=["a"] * (MAX_LISTED + 1)))),
    (
        "connections",
        _command(c.AddZone(zone=_ZONE, connections=[c.Connection(a="z", b="y")] * (c.MAX_CONNECTIONS + 1))),
    ),
    ("into", _command(c.SplitZone(zone="z", into=[_ZONE] * (c.MAX_ZONES + 1)))),
    ("zones", _command(c.MergeZones(zones=["z"] * (c.MAX_ZONES + 1), into=_ZONE))),
    ("path", _command(c.Move(character="k", path=["z"] * (c.MAX_ZONES + 1)))),
]


@pytest.mark.parametrize(("field", "frame"), PAST, ids=[f"{i}-{f}" for i, (f, _) in enumerate(PAST)])
def test_a_list_one_past_its_table_limit_is_refused_at_decoding_naming_its_field(field: str, frame: Any) -> None:
    with pytest.raises(Refused) as refused:
        decode_untrusted(json.dumps(frame), ClientMessage)  # type: ignore[arg-type]
    assert refused.value.code == errors.BAD_FIELD and field in refused.value.message


NEW_PAST = [
    ("contestants", extended_request(contestants=MAX_CONTESTANTS + 1, followers=0, seats=1)),
    ("followers", extended_request(contestants=2, followers=x.MAX_FOLLOWERS + 1, seats=1)),
    ("contestants", scored_request(contestants=MAX_CONTESTANTS + 1, seats=1)),
    ("zones", contingency_request(zones=c.MAX_ZONES + 1, characters=2, seats=1, connections=0)),
    ("characters", contingency_request(zones=2, characters=c.MAX_CHARACTERS + 1, seats=1, connections=0)),
    ("skills", contingency_request(zones=2, characters=2, seats=1, connections=0, skills=c.MAX_SKILLS + 1)),
    ("traits", contingency_request(zones=2, characters=2, seats=1, connections=0, traits=c.MAX_TRAITS + 1)),
]


@pytest.mark.parametrize(("field", "request_"), NEW_PAST, ids=[f"{i}-{f}" for i, (f, _) in enumerate(NEW_PAST)])
def test_a_new_contest_one_past_its_table_limits_is_refused_and_one_stored_before_them_still_folds(
    field: str, request_: CreateContest
) -> None:
    """Creating it is refused (``contest/bad_setup``, or ``rules/bad_dice`` for a sheet's skills, naming the
    field); the same setup, stored as an earlier
    release with wider limits stored it, still decodes, folds, audits and shows every viewer its view."""
    rules = ruleset_named(request_.ruleset)
    with pytest.raises(Refused) as refused:
        handle.create(rules, "new", request_, "0" * 64)
    assert refused.value.code == (codes.BAD_DICE if field == "skills" else errors.BAD_SETUP)
    assert field in refused.value.message
    state = rules.initial(request_.setup, request_.seats)
    created = ContestCreated(
        ruleset=request_.ruleset, title="", setup=request_.setup, seats=request_.seats, dice="physical", seed_hash=None
    )
    pending = [handle.Pending(created), *(handle.Pending(e) for e in rules.start(state))]
    stored = handle.first_envelopes(rules, "old", pending, GM, "create", "2026-01-01T00:00:00.000Z")
    envelopes = [decode(encode(e), Envelope) for e in stored]
    contest = fold(rules, envelopes)
    assert audit(envelopes, ruleset_named).finding is None
    assert contest_view(rules, contest, viewer_for(GM, contest.created.seats)).version == len(envelopes)


def _encounter() -> Table:
    """Ann's character alone, with a repeatable Triggered and a repeatable Combat action card."""
    zones, connections = line("a", "b")
    cards = [
        c.ActionDef(name="Watch", type="Triggered", repeatable=True),
        c.ActionDef(name="Strike", type="Combat", repeatable=True),
    ]
    character = c.Character(id="pc", name="Pc", zone="a")
    return Table(encounter(zones, [character], connections, players={"ann": ["pc"]}, actions=cards))


def test_an_intent_a_round_and_its_environmental_actions_hold_at_most_their_limits() -> None:
    table = _encounter()
    table.do(GM, c.OpenIntent())
    too_long = c.Intent(actions=["Watch"] * (c.MAX_INTENT + 1))
    assert table.refused(ANN, Declare(participant="pc", payload=too_long)) == codes.BAD_INTENT
    table.do(ANN, Declare(participant="pc", payload=c.Intent(actions=["Strike"] * c.MAX_INTENT)))
    assert table.state.phase == "resolving"
    watch = c.Perform(character="pc", action="Watch", kind="triggered", faces=[1, 1, 1])  # no penalty to take
    for _ in range(c.MAX_ROUND_ACTIONS - c.MAX_INTENT):
        table.do(GM, watch)
    assert table.refused(GM, watch) == codes.TABLE_FULL
    for planned in list(table.state.actions.values()):
        if planned.status == "planned":
            table.do(GM, c.Skip(action=planned.id))
    for i in range(c.MAX_ENVIRONMENTAL):
        table.do(GM, c.Environmental(text=f"the roof groans ({i})"))
    assert table.refused(GM, c.Environmental(text="the roof falls")) == codes.TABLE_FULL
    table.do(GM, c.EndRound())  # a new round starts with none of them
    assert not table.state.actions and not table.state.environmental


def test_a_roll_of_the_largest_dice_under_the_largest_penalty_is_settled_in_a_few_steps() -> None:
    started = time.process_time()
    assert skill.forced([100, 100, 100], 2 * c.MAX_ROUND_ACTIONS + 100) is None  # many ways: the player chooses
    assert skill.forced([100, 1, 1], 150) == [99, 0, 0]  # one way: taken at once
    assert skill.forced([3, 3, 3], 6) == [2, 2, 2]
    assert time.process_time() - started < 0.1


def test_the_scored_chart_shows_the_newest_points() -> None:
    table = ScoredTable(heroes(players_type_faces=True))
    for _ in range(s.CHART_POINTS + 3):  # assists by Cato for Bors: each one a resolved contest, a point
        table.do(ANN, s.Assist(helper="cato", beneficiary="bors", faces=[1, 20]))
        table.stand()
        if table.rules.pending is not None:
            table.do(GM, s.Confirm())
        if table.rules.tallies["bors"]:
            table.do(GM, s.Adjust(contestant="bors", delta=-table.rules.tallies["bors"], reason="kept in"))
    assert len(table.rules.chart) == s.CHART_POINTS + 3
    shown = scored_view(table.rules, Viewer(principal=SPECTATOR_ID, role="spectator")).chart
    assert len(shown) == s.CHART_POINTS
    assert [p.tallies for p in shown] == [p.tallies for p in table.rules.chart[3:]]
