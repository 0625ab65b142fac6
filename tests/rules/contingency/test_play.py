"""Steps, triggered and instant actions, omens, ranges and illegal commands that change nothing."""

from __future__ import annotations

from protocol.rulesets import contingency as c
from server.rules.contingency import codes
from tests.rules.contingency.table import ANN, BOB, GM, SPECTATOR, Table, encounter, line


def _wood() -> Table:
    """clearing — river — ford, and a cave reached from nowhere; a crate in the clearing."""
    zones, connections = line("clearing", "river", "ford")
    zones.append(c.Zone(id="cave", name="Cave"))
    connections.append(c.Connection(a="river", b="cave", barrier=c.Barrier(difficulty=5, action="Climb")))
    zones.append(c.Zone(id="peak", name="Peak"))
    return Table(
        encounter(
            zones,
            [
                c.Character(id="ann_pc", name="Rook", zone="clearing"),
                c.Character(id="bob_pc", name="Wren", zone="clearing"),
                c.Character(id="wolf", name="Wolf", zone="clearing"),
                c.Character(id="owl", name="Owl", zone="ford"),
                c.Character(id="hawk", name="Hawk", zone="peak"),
            ],
            connections,
            players={"ann": ["ann_pc"], "bob": ["bob_pc"]},
            things=[c.Thing(id="crate", name="Crate", zone="clearing")],
            engagements=[["bob_pc", "wolf"]],
            players_type_faces=True,
        )
    )


def _announce(table: Table, **plans: list[str]) -> None:
    """Everyone announces: the given plans, nothing for the rest."""
    actors = {"ann_pc": ANN, "bob_pc": BOB}
    table.announce({k: (actors.get(k, GM), plans.get(k, [])) for k in table.state.fighters})


def test_ranges_follow_the_zone_graph() -> None:
    ranges = _wood().view(SPECTATOR).rules.ranges
    assert ranges["bob_pc"]["wolf"] == "engaged"
    assert ranges["ann_pc"]["wolf"] == "close"
    assert ranges["ann_pc"]["owl"] == "far"
    assert ranges["owl"]["ann_pc"] == "far"
    assert ranges["ann_pc"]["hawk"] == "distant"


def test_a_step_with_an_action_moves_engages_or_reaches() -> None:
    table = _wood()
    table.announce(
        {
            "ann_pc": (ANN, ["Strike"]),
            "bob_pc": (BOB, ["Strike"]),
            "wolf": (GM, []),
            "owl": (GM, []),
            "hawk": (GM, []),
        }
    )
    table.do(ANN, c.Roll(action="ann_pc.1", step=c.Step(engage="wolf"), faces=[4, 4, 4]))
    assert table.view(SPECTATOR).rules.ranges["ann_pc"]["wolf"] == "engaged"
    assert table.refused(BOB, c.Roll(step=c.Step(zone="river"), faces=[4, 4, 4])) == codes.ENGAGED
    table.do(BOB, c.Roll(faces=[4, 4, 4]))  # without the step it is fine


def test_illegal_steps_are_refused_and_change_nothing() -> None:
    table = _wood()
    _announce(table, ann_pc=["Strike", "Shoot"])
    assert table.refused(ANN, c.Roll(step=c.Step(zone="ford"), faces=[4, 4, 4])) == codes.NOT_ADJACENT
    assert table.refused(ANN, c.Roll(step=c.Step(reach="nothing"), faces=[4, 4, 4])) == codes.NOT_IN_ZONE
    assert table.refused(ANN, c.Roll(step=c.Step(engage="owl"), faces=[4, 4, 4])) == codes.NOT_IN_ZONE
    assert table.refused(ANN, c.Roll(step=c.Step(zone="river", reach="crate"), faces=[4, 4, 4])) == codes.BAD_STEP
    table.do(ANN, c.Roll(step=c.Step(zone="river"), faces=[4, 4, 4]))
    assert table.state.fighters["ann_pc"].zone == "river"
    # across the Climb barrier into the cave: no step, and only once a round anyway
    assert table.refused(ANN, c.Roll(step=c.Step(zone="cave"), faces=[4, 4, 4])) == codes.ONE_STEP


def test_a_step_across_a_barrier_is_refused() -> None:
    table = _wood()
    table.do(GM, c.Place(character="ann_pc", zone="river"))
    _announce(table, ann_pc=["Strike"])
    assert table.refused(ANN, c.Roll(step=c.Step(zone="cave"), faces=[4, 4, 4])) == codes.BARRIER
    assert table.state.fighters["ann_pc"].zone == "river"


def test_the_same_action_twice_in_a_round_is_refused_when_played() -> None:
    table = _wood()
    _announce(table, ann_pc=["Strike", "Shoot"])
    table.do(ANN, c.ChangeAction(action="ann_pc.2", to="Taunt"))
    assert table.refused(ANN, c.ChangeAction(action="ann_pc.2", to="Strike")) == codes.CHANGE_PENDING
    table.do(GM, c.RuleOnChange(action="ann_pc.2", allow=False))
    assert table.refused(ANN, c.ChangeAction(action="ann_pc.2", to="Strike")) == codes.REPEATED_ACTION


def test_triggered_actions_count_toward_the_penalty_and_never_repeat() -> None:
    table = _wood()
    _announce(table, bob_pc=["Strike"])
    defend = c.Perform(character="bob_pc", action="Defend", kind="triggered", faces=[6, 6, 6])
    first = table.events(table.do(BOB, defend))
    assert first[0].kind == "triggered" and first[0].penalty == 0 and first[1].result == 6
    assert table.refused(BOB, defend) == codes.REPEATED_ACTION
    rolled = table.events(table.do(BOB, c.Roll(faces=[6, 6, 6])))[0]
    assert rolled.name == "Strike" and rolled.penalty == 2  # the Defend counted
    assert table.refused(BOB, c.Perform(character="bob_pc", action="Strike", kind="triggered")) == (
        codes.AWAITING_PENALTY
    )
    table.do(BOB, c.TakePenalty(reductions=[2, 0, 0]))
    assert table.refused(BOB, c.Perform(character="bob_pc", action="Strike", kind="triggered")) == (codes.NOT_TRIGGERED)


def test_an_omen_grants_an_instant_strike_without_a_further_penalty() -> None:
    table = _wood()
    _announce(table, bob_pc=["Taunt", "Strike"])
    table.do(BOB, c.Roll(faces=[7, 7, 7]))  # Taunt
    strike = table.events(table.do(BOB, c.Roll(faces=[2, 9, 9])))
    assert strike[0].penalty == 2
    resolved = table.events(table.do(BOB, c.TakePenalty(reductions=[0, 1, 1])))[0]
    assert resolved.faces == [2, 8, 8] and resolved.omens == 1  # one omen per roll (the default)
    again = c.Perform(character="bob_pc", action="Strike", kind="instant", faces=[5, 5, 5])
    assert table.refused(BOB, again) == codes.NOT_INSTANT
    table.do(BOB, c.TakeOmen(character="bob_pc", omen="Follow-through", grants="Strike"))
    assert table.refused(BOB, c.TakeOmen(character="bob_pc", omen="Follow-through")) == codes.NO_OMEN
    instant = table.events(table.do(BOB, again))
    assert instant[0].kind == "instant" and instant[0].penalty == 2  # the Strike's own −2, no more
    assert table.state.fighters["bob_pc"].taken == 2  # an instant action is part of the action it follows


def test_omen_benefits_are_not_taken_twice_in_one_action_unless_repeatable() -> None:
    request = _wood().request
    import msgspec

    table = Table(msgspec.structs.replace(request, setup=msgspec.structs.replace(request.setup, omens="per_die")))
    _announce(table, bob_pc=["Strike"])
    assert table.events(table.do(BOB, c.Roll(faces=[9, 8, 10])))[1].omens == 3
    table.do(BOB, c.TakeOmen(character="bob_pc", omen="Cleave"))
    assert table.refused(BOB, c.TakeOmen(character="bob_pc", omen="Cleave")) == codes.OMEN_TAKEN
    table.do(BOB, c.TakeOmen(character="bob_pc", omen="Rally", repeatable=True))
    table.do(BOB, c.TakeOmen(character="bob_pc", omen="Rally", repeatable=True))
    assert table.state.fighters["bob_pc"].omens == 0


def test_a_skipped_action_takes_no_step_and_the_round_moves_on() -> None:
    table = _wood()
    _announce(table, ann_pc=["Strike"])
    events = table.events(table.do(ANN, c.Skip(action="ann_pc.1")))
    assert events == [
        c.ActionSkipped(action="ann_pc.1", character="ann_pc", name="Strike", action_type="Combat"),
        c.PhaseChanged(phase="environment"),
    ]
    assert table.refused(ANN, c.Environmental(text="the river rises")) == "auth/forbidden"
    table.do(GM, c.Environmental(text="the river rises"))
    assert table.view(SPECTATOR).rules.environmental == ["the river rises"]
