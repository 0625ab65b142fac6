"""Every registered ruleset, played at random from every seat, keeps the engine's laws.

Fold determinism, snapshot + tail = full fold, undo then redo = no change, rewind to v = the state at v,
every refused command changes nothing, no viewer receives what it may not see, viewers of one sight see
one view, every view says what the contest waits for in names (``waiting.py``), and the audit (``agon
verify``) accepts every history played. Each ruleset supplies only a strategy module
(``tests/conformance/kit.py``). Settings: ``AGON_CONFORMANCE=long`` plays many more and longer contests.
"""

from __future__ import annotations

import os
from typing import Any, cast, get_args

import msgspec
import pytest
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from protocol import errors
from protocol.codec import canonical, encode, to_builtins
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import (
    CloseDeclarations,
    Command,
    Conclude,
    Concluded,
    ContestCreated,
    CreateContest,
    Declaration,
    Declare,
    Declared,
    Envelope,
    Redo,
    Redone,
    Revealed,
    Rewind,
    Rewound,
    RulesetCommand,
    Setup,
    Undo,
    Undone,
)
from protocol.patch import Shared, diff, diff_views
from protocol.patch import apply as apply_patch
from server.engine.audit import audit
from server.engine.contest import (
    Contest,
    HistoryElided,
    fold,
    needs_history,
    restored,
    rewind_targets,
    trimmed,
    undo_target,
)
from server.engine.follow import followed_views
from server.engine.names import naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.views import (
    contest_view,
    contest_views,
    shown_event,
    sight,
    viewer_for,
    written_patches,
)
from server.feed.notices import notice_frame
from server.feed.views import view_doc
from server.rulesets import RULESETS
from server.rulesets import ruleset as ruleset_named
from tests.conformance import secrecy
from tests.conformance.driver import Driver
from tests.conformance.kit import Strategy, load
from tests.conformance.waiting import check_waiting

PROFILES = {
    "quick": settings(
        max_examples=40,
        stateful_step_count=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    ),
    "long": settings(
        max_examples=400,
        stateful_step_count=80,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    ),
}
PROFILE = PROFILES[os.environ.get("AGON_CONFORMANCE", "quick")]

DECLARATIONS = get_args(Declaration)
ENGINE_EVENTS = (ContestCreated, Declared, Revealed, Undone, Rewound, Redone, Concluded)


def state_bytes(contest: Contest[Any]) -> bytes:
    return encode([contest.rules, contest.declared, contest.steps(), contest.redo, contest.concluded])


def without_history(contest: Contest[Any]) -> bytes:
    """Everything of a contest but its effective history and its command index: what serving it needs."""
    return encode(
        [
            contest.version,
            contest.head_hash,
            contest.rules,
            contest.declared,
            contest.redo,
            contest.concluded,
            contest.generations,
            undo_target(contest),
        ]
    )


def machine(rules: Ruleset[Any], strategy: Strategy) -> type[RuleBasedStateMachine]:
    own_commands = get_args(rules.command_type) or (rules.command_type,)
    foreign = [
        t
        for t in (*get_args(RulesetCommand), *get_args(Declaration))
        if not issubclass(t, (*own_commands, rules.declaration_type))
    ]

    class Conformance(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.driver: Driver | None = None
            self.offered: tuple[int, str, st.SearchStrategy[Command]] | None = None  # see ``commands``
            self.docs: dict[str, Any] = {}
            self.views: dict[str, Any] = {}  # the messages of ``docs``

        @property
        def d(self) -> Driver:
            assert self.driver is not None
            return self.driver

        @property
        def gm(self) -> Actor:
            return next(a for a in self.d.actors if a.role == "gm")

        @property
        def gm_viewer(self) -> Viewer:
            return viewer_for(self.gm, self.d.contest.created.seats)

        def viewers(self) -> list[tuple[Actor, Viewer]]:
            return [(a, viewer_for(a, self.d.contest.created.seats)) for a in self.d.actors]

        @initialize(request=strategy.setups())
        def open_contest(self, request: CreateContest) -> None:
            self.driver = Driver(rules, request)
            seen = self.viewers()
            together = contest_views(rules, self.d.contest, [viewer for _, viewer in seen])
            for (actor, viewer), view in zip(seen, together, strict=True):
                doc = view_doc(rules, self.d.contest, viewer)
                self._check_view(viewer, doc)
                self.docs[actor.principal] = doc
                self.views[actor.principal] = view  # built together, as the feeds build them
            self._check_events(self.d.log, None)

        # --- sending commands -------------------------------------------------------------------------

        def send(self, command: Command, order: list[Actor]) -> bool:
            """Send from each actor in turn until one is accepted; every refusal must change nothing."""
            for actor in order:
                before, log_length, snapshot = self.d.contest, len(self.d.log), state_bytes(self.d.contest)
                try:
                    batch = self.d.do(actor, command)
                except Refused as refused:
                    assert refused.code, f"{command} refused without a code"
                    assert self.d.contest is before and len(self.d.log) == log_length
                    assert state_bytes(before) == snapshot, f"refusing {command} from {actor} changed the state"
                    continue
                self._check_events(batch, before)
                self._check_views()
                return True
            return False

        def commands(self) -> st.SearchStrategy[Command]:
            """The strategy's commands for the contest as it stands, made once for each of its states (its version
            and head hash): most commands drawn are refused, which leaves the contest as it was, and Hypothesis
            validates every new strategy object it is given, every option of it, which cost about ten times the
            laws themselves (a profile of the suite: 85 % of its time). The strategy is a function of the state:
            made again, it would offer the same commands."""
            contest = self.d.contest
            if self.offered is None or self.offered[:2] != (contest.version, contest.head_hash):
                self.offered = (contest.version, contest.head_hash, strategy.commands(self.d.table()))
            return self.offered[2]

        @rule(data=st.data())
        def ruleset_commands(self, data: st.DataObject) -> None:
            """A run of commands from the strategy (runs, so contests get far between undos and rewinds)."""
            for _ in range(data.draw(st.integers(1, 12), label="run length")):
                command = data.draw(self.commands(), label="command")
                self.send(command, data.draw(st.permutations(self.d.actors), label="senders"))

        @rule(data=st.data())
        def more_ruleset_commands(self, data: st.DataObject) -> None:
            """The strategy's commands, weighted above the engine's and the hostile ones."""
            self.ruleset_commands(data)

        @rule(data=st.data())
        def engine_command(self, data: st.DataObject) -> None:
            targets = rewind_targets(self.d.contest)
            options: list[st.SearchStrategy[Command]] = [
                st.just(Undo()),
                st.just(Redo()),
                st.just(CloseDeclarations()),
                st.builds(Rewind, to_version=st.integers(-1, self.d.contest.version + 1)),
            ]
            if targets:
                options.append(st.builds(Rewind, to_version=st.sampled_from(targets)))
            command = data.draw(st.one_of(options), label="engine command")
            self.send(command, data.draw(st.permutations(self.d.actors), label="senders"))

        @rule(data=st.data())
        def hostile_command(self, data: st.DataObject) -> None:
            """Any command of this ruleset a client could send, whatever its fields: refused or accepted,
            never a crash."""
            command = data.draw(st.one_of([st.from_type(t) for t in own_commands]), label="hostile command")
            try:
                command = msgspec.json.decode(encode(command), type=Command)
            except (msgspec.EncodeError, msgspec.ValidationError, OverflowError, TypeError):
                assume(False)  # the network could not deliver it
            self.send(command, data.draw(st.permutations(self.d.actors), label="senders"))

        @rule(data=st.data())
        def foreign_command(self, data: st.DataObject) -> None:
            """Another ruleset's command or sealed declaration is refused from every seat."""
            if not foreign:
                return
            thing = data.draw(st.one_of([st.from_type(t) for t in foreign]), label="foreign")
            participant = data.draw(st.sampled_from([c for s in self.d.request.seats for c in s.contestants] or ["x"]))
            command = Declare(participant=participant, payload=thing) if isinstance(thing, DECLARATIONS) else thing
            assert not self.send(command, self.d.actors), f"{rules.name} accepted {command}"
            if self.d.contest.concluded is None and not isinstance(command, Declare):
                with pytest.raises(Refused) as refused:
                    self.d.do(self.gm, command)
                assert refused.value.code == errors.FOREIGN

        def declared_in_the_open_window(self) -> list[Declared]:
            """The declarations made in the open declaration window, if one is open."""
            window = rules.window(self.d.contest.rules) if self.d.contest.concluded is None else None
            if window is None:
                return []
            return [d for d in self.d.contest.declared.values() if d.window == window.id]

        @precondition(lambda self: self.driver is not None and bool(self.declared_in_the_open_window()))
        @rule(data=st.data())
        def a_declaration_replaced_then_taken_back(self, data: st.DataObject) -> None:
            """A participant replaces its sealed declaration (the same payload under a new salt: a new
            commitment), then the GM takes the replacement back by an undo, a rewind, or an undo and a redo, and
            may close the window: the reveal must publish what stands (the audit's law, in ``teardown``). Rare
            in the strategies' runs, where the other participants declare before the GM steps in."""
            first = data.draw(st.sampled_from(self.declared_in_the_open_window()), label="replaced")
            assert first.payload is not None
            replacement = Declare(participant=first.participant, payload=first.payload)
            if not self.send(replacement, data.draw(st.permutations(self.d.actors), label="senders")):
                return
            replaced_at = self.d.contest.version
            way = data.draw(st.sampled_from(["undo", "rewind", "undo and redo"]), label="taken back by")
            targets = [t for t in rewind_targets(self.d.contest) if t < replaced_at]
            if way == "rewind" and targets:
                self.send(Rewind(to_version=data.draw(st.sampled_from(targets[-2:]), label="rewind to")), [self.gm])
            elif self.send(Undo(), [self.gm]) and way == "undo and redo":
                self.send(Redo(), [self.gm])
            if data.draw(st.booleans(), label="close the window"):
                self.send(CloseDeclarations(), [self.gm])

        @precondition(lambda self: self.driver is not None and self.d.contest.version > 8)
        @rule(data=st.data())
        def conclude(self, data: st.DataObject) -> None:
            """Rarely (a precondition and one rule among many): the GM ends the contest."""
            if data.draw(st.integers(0, 3), label="conclude now") == 0:
                self.send(Conclude(), data.draw(st.permutations(self.d.actors), label="senders"))

        # --- the laws ----------------------------------------------------------------------------------

        @invariant()
        def folding_twice_gives_the_same_contest(self) -> None:
            if self.driver is None:
                return
            first, second = fold(rules, self.d.log), fold(rules, self.d.log)
            assert encode(first) == encode(second) == encode(self.d.contest)

        @rule(data=st.data())
        def snapshot_plus_tail_is_the_full_fold(self, data: st.DataObject) -> None:
            k = data.draw(st.integers(1, len(self.d.log)), label="snapshot at")
            snapshot_type = cast(Any, Contest)[rules.state_type]
            snapshot = msgspec.json.decode(encode(fold(rules, self.d.log[:k])), type=snapshot_type)
            assert encode(fold(rules, self.d.log[k:], snapshot)) == encode(self.d.contest)

        @rule(data=st.data())
        def a_snapshot_without_the_history_plus_tail_serves_as_the_full_fold(self, data: st.DataObject) -> None:
            """What the service stores: folding the tail onto it gives the full fold's state, indexes and
            undo target; what undoes, redoes or rewinds refuses to fold without the history (the service
            folds the log again then), never folds to something else."""
            k = data.draw(st.integers(1, len(self.d.log)), label="snapshot at")
            snapshot_type = cast(Any, Contest)[rules.state_type]
            snapshot = restored(msgspec.json.decode(encode(trimmed(fold(rules, self.d.log[:k]))), type=snapshot_type))
            tail = self.d.log[k:]
            if needs_history(snapshot, tail):
                with pytest.raises(HistoryElided):
                    fold(rules, tail, snapshot)
                return
            folded = fold(rules, tail, snapshot) if tail else snapshot
            assert without_history(folded) == without_history(self.d.contest)
            # The command index knows every command whose batch ends after the snapshot, and no other (the
            # store's event ids tell of those).
            for key in self.d.contest.commands:
                principal, command_id = key.split("\x1f")
                ended = self.d.contest.command_version(principal, command_id)
                known = ended if ended is not None and ended > snapshot.version else None
                assert folded.command_version(principal, command_id) == known, f"command {key!r}"

        @rule()
        def undo_then_redo_changes_nothing(self) -> None:
            gm = self.gm
            before = state_bytes(self.d.contest)
            if not self.send(Undo(), [gm]):
                return
            assert state_bytes(self.d.contest) != before
            assert self.send(Redo(), [gm]), "redo refused right after an undo"
            assert state_bytes(self.d.contest) == before

        @rule(data=st.data())
        def rewind_to_v_gives_the_state_at_v(self, data: st.DataObject) -> None:
            targets = rewind_targets(self.d.contest)
            if not targets or self.d.contest.concluded is not None:
                return
            v = data.draw(st.sampled_from(targets), label="rewind to")
            assert self.send(Rewind(to_version=v), [self.gm])
            at_v = fold(rules, self.d.log[:v])
            assert encode([self.d.contest.rules, self.d.contest.declared]) == encode([at_v.rules, at_v.declared])

        def teardown(self) -> None:
            """The history played, as the engine chained it, passes the audit: hash chain, commitments (each
            reveal publishing what undo, redo and rewind left declared), dice and fold. Once per history: a
            finding in a prefix stays a finding in the whole log."""
            if self.driver is None:
                return
            report = audit(self.d.log, ruleset_named)
            assert report.finding is None, f"the audit rejects an honest log: {report.finding}"

        def _check_events(self, batch: list[Envelope], before: Contest[Any] | None) -> None:
            """Per event: the ruleset's own invariant, every viewer's notice, and the patches the ruleset writes
            (for each event alone, then for the whole batch)."""
            contest, pairs = before, []
            for envelope in batch:
                after = fold(rules, [envelope], contest)
                event = envelope.event
                rules_before = contest.rules if contest is not None else after.rules
                if contest is not None:
                    pairs.append((envelope, contest.rules))
                    self._check_written(contest, after, pairs[-1:])
                    self._check_followed(contest, after, pairs[-1:])
                    if not isinstance(event, ENGINE_EVENTS):
                        strategy.check_event(contest.rules, event, after.rules)
                extra = [(event.participant, event.payload)] if isinstance(event, Declared) else []
                gm_docs = [view_doc(rules, c, self.gm_viewer) for c in (contest, after) if c is not None]
                for actor, viewer in self.viewers():
                    frame = notice_frame(rules, rules_before, envelope, viewer, naming(rules, [], rules_before), "c")
                    if frame is None:
                        continue
                    secrets = secrecy.secrets_for(after, viewer, extra)
                    leaks = secrecy.leaked(frame, secrets)
                    assert not leaks, f"{actor} is told {leaks} in the notice of event {envelope.version}"
                    if isinstance(event, ENGINE_EVENTS) and not isinstance(event, Revealed):
                        continue  # the engine describes its own events, from what every viewer may know
                    shown = shown_event(rules, rules_before, envelope, viewer)
                    hidden = self._hidden_values(viewer, contest, after, gm_docs)
                    known = set().union(*(secrecy.texts_in(view_doc(rules, c, viewer)) for c in (contest, after) if c))
                    told = secrecy.carried(shown, hidden, known, strategy.public(shown))
                    assert not told, f"{actor} is told {told} by event {envelope.version}: {shown}"
                contest = after
            if before is not None and contest is not None:
                self._check_written(before, contest, pairs)
                self._check_followed(before, contest, pairs)
                events = [e.event for e in batch]
                if not any(isinstance(e, (Undone, Rewound, Redone)) for e in events):
                    ruleset_events = [e for e in events if not isinstance(e, ENGINE_EVENTS)]
                    strategy.check_batch(before.rules, ruleset_events, contest.rules)

        def _check_written(self, before: Contest[Any], after: Contest[Any], pairs: list[Any]) -> None:
            """Every patch the ruleset writes instead of a diff turns each viewer's view before into its view
            after, and tells it nothing it may not see."""
            seen = self.viewers()
            written = written_patches(rules, before, after, pairs, [viewer for _, viewer in seen])
            if written is None:
                return
            for (actor, viewer), ops in zip(seen, written, strict=True):
                old, new = view_doc(rules, before, viewer), view_doc(rules, after, viewer)
                got = canonical(apply_patch(old, ops))
                assert got == canonical(new), f"{rules.name}'s patch {ops} for {actor} gives {got!r}"
                leaks = secrecy.leaked(encode(ops), secrecy.secrets_for(after, viewer))
                assert not leaks, f"{actor} is sent {leaks} in a written patch"
                hidden = secrecy.hidden_in_patch(ops, strategy.hidden(after.rules, viewer))
                assert not hidden, f"{actor} is sent hidden {hidden} in a written patch"

        def _check_followed(self, before: Contest[Any], after: Contest[Any], pairs: list[Any]) -> None:
            """Every viewer's view that follows the events from its view before them (what the feeds publish)
            equals its view built whole."""
            seen = [viewer for _, viewer in self.viewers()]
            followed = followed_views(rules, before, after, pairs, seen, contest_views(rules, before, seen))
            whole = contest_views(rules, after, seen)
            for viewer, got, want in zip(seen, followed, whole, strict=True):
                if got != want:
                    wrong = [m for m in got.rules.__struct_fields__ if getattr(got.rules, m) != getattr(want.rules, m)]
                    events = [type(envelope.event).__name__ for envelope, _ in pairs]
                    raise AssertionError(f"{viewer.principal}'s view followed through {events} differs in {wrong}")

        def _hidden_values(
            self, viewer: Viewer, before: Contest[Any] | None, after: Contest[Any], gm_docs: list[Any]
        ) -> list[secrecy.HiddenValue]:
            """What the viewer's views before and after an event hide, and how much each hidden number moved."""
            states = [c.rules for c in (before, after) if c is not None]
            values = [
                secrecy.hidden_values(doc, strategy.hidden(state, viewer))
                for doc, state in zip(gm_docs, states, strict=True)
            ]
            moved = secrecy.changes(values[0], values[-1]) if len(values) == 2 else []
            return [*values[0], *values[-1], *moved] if len(values) == 2 else values[0]

        def _check_view(self, viewer: Viewer, doc: Any) -> None:
            leaks = secrecy.leaked(encode(doc), secrecy.secrets_for(self.d.contest, viewer))
            assert not leaks, f"{viewer.principal} sees {leaks}"
            hidden = secrecy.hidden_in_view(doc, strategy.hidden(self.d.contest.rules, viewer))
            assert not hidden, f"{viewer.principal} sees hidden {hidden}"
            check_waiting(rules, self.d.contest, doc, viewer.principal)

        def _check_views(self) -> None:
            seen = [viewer for _, viewer in self.viewers()]
            together = contest_views(rules, self.d.contest, seen)
            alone = [contest_view(rules, self.d.contest, viewer) for viewer in seen]
            assert together == alone, "the views built together are not each viewer's view built alone"
            members = Shared()
            for (actor, viewer), view in zip(self.viewers(), together, strict=True):
                old, new = self.docs[actor.principal], to_builtins(view)  # the view's document (``view_doc``)
                self._check_view(viewer, new)
                ops = diff(old, new)
                assert apply_patch(old, ops) == new
                # The feeds diff the messages, not the documents (what the views built together share, once): the
                # same ops, op for op.
                by_message = diff_views(self.views[actor.principal], view, members)
                assert by_message == ops, f"{actor}'s view diffed as messages"
                self.views[actor.principal] = view
                leaks = secrecy.leaked(encode(ops), secrecy.secrets_for(self.d.contest, viewer))
                assert not leaks, f"{actor} is sent {leaks} in a patch"
                hidden = secrecy.hidden_in_patch(ops, strategy.hidden(self.d.contest.rules, viewer))
                assert not hidden, f"{actor} is sent hidden {hidden}"
                self.docs[actor.principal] = new
                for twin in same_sight(viewer):
                    assert view_doc(rules, self.d.contest, twin) == new, f"{twin} and {viewer} see one sight"

    Conformance.__name__ = f"Conformance_{rules.name}"
    return Conformance


def same_sight(viewer: Viewer) -> list[Viewer]:
    """Viewers who are someone else but share the viewer's sight (``server.engine.views.sight``): their view
    must be the same, because the server builds one view per sight. A spectator's twins include a player
    who controls nobody."""
    twins = [msgspec.structs.replace(viewer, principal=f"twin-of-{viewer.principal}")]
    if not viewer.omniscient and not viewer.contestants:
        twins += [Viewer(principal="nobody", role=role) for role in ("player", "spectator") if role != viewer.role]
    assert all(sight(twin) == sight(viewer) for twin in twins)
    return twins


def check_states_untracked(rules: Ruleset[Any]) -> None:
    """The ruleset's own state structs are declared ``gc=False``: a state is an immutable tree, never in a
    reference cycle, and a server holds thousands of them (the story so far, checkpoints), which the garbage
    collector would otherwise walk in every full collection. Wire types (``protocol``) are left as they are."""
    seen: set[type] = set()
    pending: list[Any] = [msgspec.inspect.type_info(rules.state_type)]
    while pending:
        info = pending.pop()
        if isinstance(info, msgspec.inspect.StructType):
            if info.cls in seen:
                continue
            seen.add(info.cls)
            if not info.cls.__module__.startswith("protocol."):
                assert info.cls.__struct_config__.gc is False, f"{info.cls.__qualname__} is tracked by the collector"
            pending += [field.type for field in info.fields]
        else:  # a collection, a union, ...: look into the types it is made of
            for value in (getattr(info, name) for name in info.__struct_fields__):
                values = value if isinstance(value, tuple) else (value,)
                pending += [v for v in values if isinstance(v, msgspec.inspect.Type)]


def check_types(rules: Ruleset[Any]) -> None:
    """A ruleset names its own setup, commands and declarations, all of them members of the wire unions, so
    the engine can refuse everything else."""
    unions = {"setup": Setup, "command": RulesetCommand, "declaration": Declaration}
    for kind, union in unions.items():
        declared = getattr(rules, f"{kind}_type")
        members = get_args(declared) or (declared,)
        for member in members:
            assert isinstance(member, type) and issubclass(member, msgspec.Struct), f"{rules.name}: {kind} {member}"
            assert member in get_args(union), f"{rules.name}: {member.__name__} is not in the {kind} union"


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_registered_ruleset_names_its_own_types(name: str) -> None:
    check_types(RULESETS[name])


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_registered_ruleset_keeps_its_states_out_of_the_collector(name: str) -> None:
    check_states_untracked(RULESETS[name])


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_registered_ruleset_has_a_strategy(name: str) -> None:
    strategy = load(name)
    assert strategy.name == name


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_ruleset_keeps_the_engine_laws(name: str) -> None:
    run_state_machine_as_test(machine(RULESETS[name], load(name)), settings=PROFILE)
