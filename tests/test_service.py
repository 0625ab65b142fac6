"""The service on every store: a whole contest, retries, conflicts between writers, snapshots, and the
audit commands (`agon export`, `agon verify`, `agon replay`) run as real processes."""

from __future__ import annotations

import asyncio
import re
import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from protocol.codec import encode
from protocol.common import AUDITOR
from protocol.common import SPECTATOR as SPECTATORS
from protocol.errors import Refused
from protocol.events import Conclude, CreateContest, Declare, Redo, ReissueSeat, Rewind, Undo
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.engine.contest import trimmed
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService, utc_now
from server.store import EventStore, MemoryStore, open_store
from server.store.port import Snapshot
from tests.engine.table import ANN, GM, SPECTATOR, duel

AGON = [sys.executable, "-m", "server.cli"]


@pytest.fixture
async def store(spec: str) -> AsyncIterator[EventStore]:
    opened = open_store(spec)
    yield opened
    await opened.close()


def request_for(contest: str, dice: str = "physical") -> CreateContest:
    return msgspec.structs.replace(duel(dice=dice, hero_points=1), contest=contest)


class Player:
    """Sends commands with fresh command ids, like a client would."""

    def __init__(self, service: ContestService, contest: str) -> None:
        self.service, self.contest, self.sent = service, contest, 0

    async def __call__(self, actor: object, command: object) -> int:
        self.sent += 1
        result = await self.service.execute(self.contest, actor, f"cmd-{self.sent}", command)  # type: ignore[arg-type]
        return result.version


async def play_to_the_end(service: ContestService, contest: str) -> None:
    """Aria (15) against the orc (12): three exchanges, the orc falls to -12, a Minor defeat."""
    act = Player(service, contest)
    await act(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)))
    await act(GM, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
    await act(GM, x.Roll(faces=[1, 10]))  # Critical vs Success: 5 transferred, orc 7, Aria 20 (nothing to bump)
    await act(ANN, x.PassHeroPoint(contestant="aria"))  # Ann lets it stand
    await act(GM, x.Roll(faces=[15, 3]))  # the orc fails, Aria succeeds: the orc loses 4, now 3
    await act(ANN, x.PassHeroPoint(contestant="aria"))
    await act(ANN, Declare(participant="aria", payload=x.Intent(action="finish it", bid=15)))
    await act(GM, Declare(participant="orc", payload=x.Intent(action="parry", bid=3)))
    await act(GM, x.Roll(faces=[2, 16]))  # Success vs Failure: the orc loses 15, now -12
    await act(ANN, x.PassHeroPoint(contestant="aria"))
    await act(GM, Conclude())


async def test_a_whole_contest_on_each_store(store: EventStore, tmp_path: Path) -> None:
    contest = f"duel-{uuid.uuid4().hex[:8]}"
    service = ContestService(store, snapshot_every=4)
    await service.create(GM, request_for(contest))
    await play_to_the_end(service, contest)
    view = await service.view(contest, SPECTATOR)
    assert view.concluded
    outcome = view.rules.outcome
    assert outcome is not None
    assert (outcome.winner, outcome.loser, outcome.loser_ap, outcome.level) == ("aria", "orc", -12, "Minor")
    assert (outcome.consequence, outcome.benefit) == ("Impaired", "Pumped")
    # a second service (another process, say) with no cache sees the same state from snapshot + tail
    fresh = ContestService(store)
    assert encode(await fresh.view(contest, GM)) == encode(await service.view(contest, GM))
    await store.delete_snapshots(contest)
    fresh = ContestService(store)
    assert encode(await fresh.view(contest, GM)) == encode(await service.view(contest, GM))
    # its log, as `agon export` writes it, passes `agon verify`
    log = tmp_path / "duel.jsonl"
    log.write_bytes(b"".join(r.data + b"\n" for r in await store.read(contest)))
    verified = subprocess.run([*AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr


async def test_a_concluded_contest_still_gets_auditor_links_and_nothing_else() -> None:
    """Auditing is what a concluded contest is for: its GM may issue (and re-issue) an auditor link; every other
    command, a player seat's or the spectators' new link included, is refused contest/over."""
    service = ContestService(MemoryStore())
    await service.create(GM, request_for("over"))
    await play_to_the_end(service, "over")
    first = await service.execute("over", GM, "auditor-1", ReissueSeat(seat=AUDITOR))
    again = await service.execute("over", GM, "auditor-2", ReissueSeat(seat=AUDITOR))
    assert again.version == first.version + 1
    late = [ReissueSeat(seat="ann"), ReissueSeat(seat=SPECTATORS), x.Adjust(contestant="orc", delta=1, reason="late")]
    for n, command in enumerate(late):
        with pytest.raises(Refused) as refused:
            await service.execute("over", GM, f"late-{n}", command)
        assert refused.value.code == "contest/over"
    _, contest = await service.load("over")
    assert contest.generation(AUDITOR) == 2
    assert audit(await service.events("over"), ruleset_named).finding is None


async def test_a_repeated_command_id_returns_the_first_result(store: EventStore) -> None:
    contest = f"retry-{uuid.uuid4().hex[:8]}"
    service = ContestService(store)
    await service.create(GM, request_for(contest))
    command = Declare(participant="aria", payload=x.Intent(bid=2))
    first = await service.execute(contest, ANN, "same-id", command)
    again = await service.execute(contest, ANN, "same-id", command)
    other = ContestService(store)  # a process that never saw the first one
    third = await other.execute(contest, ANN, "same-id", command)
    assert again.version == third.version == first.version and again.repeated and third.repeated
    assert await store.head(contest) == first.version


async def test_refused_commands_change_nothing(store: EventStore) -> None:
    contest = f"refused-{uuid.uuid4().hex[:8]}"
    service = ContestService(store)
    await service.create(GM, request_for(contest))
    head = await store.head(contest)
    for actor, command, code in [
        (ANN, Declare(participant="aria", payload=x.Intent(bid=0)), "rules/bid_too_low"),
        (ANN, Declare(participant="aria", payload=x.Intent(bid=99)), "rules/bid_too_high"),
        (ANN, Undo(), "auth/forbidden"),
        (SPECTATOR, x.Roll(), "auth/forbidden"),
        (GM, x.Roll(faces=[1, 1]), "rules/out_of_phase"),
    ]:
        with pytest.raises(Refused) as refused:
            await service.execute(contest, actor, f"bad-{code}", command)  # type: ignore[arg-type]
        assert refused.value.code == code
    assert await store.head(contest) == head


async def test_two_writers_on_one_contest_never_fork_it(spec: str) -> None:
    stores = [MemoryStore()] * 2 if spec == "memory:" else [open_store(spec), open_store(spec)]
    contest = f"race-{uuid.uuid4().hex[:8]}"
    services = [ContestService(s) for s in stores]
    await services[0].create(GM, request_for(contest))
    await services[1].load(contest)  # both now cache version 2
    adjustments = [
        services[i % 2].execute(contest, GM, f"adjust-{i}", x.Adjust(contestant="aria", delta=1, reason=f"#{i}"))
        for i in range(10)
    ]
    results = await asyncio.gather(*adjustments)
    assert sorted(r.version for r in results) == list(range(3, 13))
    for service in services:
        service.forget(contest)
        _, state = await service.load(contest)
        assert state.version == 12 and state.rules.fighters["aria"].ap == 25
    for s in set(stores):
        await s.close()


@pytest.mark.parametrize("kind", ["sqlite", "redis"])
async def test_export_verify_and_replay_from_the_command_line(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    spec = f"sqlite:{tmp_path / 'agon.sqlite3'}" if kind == "sqlite" else str(request.getfixturevalue("redis_url"))
    contest = f"audit-{uuid.uuid4().hex[:8]}"
    store = open_store(spec)
    service = ContestService(store)
    await service.create(GM, request_for(contest, dice="server"))
    act = Player(service, contest)
    await act(ANN, Declare(participant="aria", payload=x.Intent(action="feint", bid=3)))
    await act(GM, Declare(participant="orc", payload=x.Intent(action="charge", bid=3)))
    for _ in range(2):
        await act(GM, x.Roll())
        if (await service.view(contest, GM)).rules.phase == "rolled":
            await act(ANN, x.PassHeroPoint(contestant="aria"))
    await act(GM, Conclude())
    await store.close()

    log = tmp_path / "contest.jsonl"
    exported = subprocess.run([*AGON, "export", contest, "--store", spec, "-o", str(log)], capture_output=True)
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run([*AGON, "verify", str(log)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    assert "4 dice checked" in verified.stdout

    lines = log.read_bytes().splitlines(keepends=True)
    target = 6  # flip one byte inside event 6's payload
    line = bytearray(lines[target - 1])
    at = line.index(b'"actor"') + 12
    line[at] = ord("X") if line[at] != ord("X") else ord("Y")
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(b"".join(lines[: target - 1]) + bytes(line) + b"".join(lines[target:]))
    failed = subprocess.run([*AGON, "verify", str(tampered)], capture_output=True, text=True)
    assert failed.returncode != 0
    assert f"event {target}:" in failed.stderr

    as_spectator = subprocess.run(
        [*AGON, "replay", str(log), "--as", "spectator", "--at", "4"], capture_output=True, text=True
    )
    assert as_spectator.returncode == 0, as_spectator.stderr
    assert "feint" not in as_spectator.stdout  # Aria's intent was still sealed at version 4
    assert "seal.declared [sealed]" in as_spectator.stdout
    as_ann = subprocess.run(
        [*AGON, "replay", str(log), "--as", "player:ann", "--at", "4"], capture_output=True, text=True
    )
    assert "feint" in as_ann.stdout and "charge" not in as_ann.stdout


async def test_undo_redo_and_rewind_after_a_snapshot_without_the_history(store: EventStore) -> None:
    """A snapshot holds the rule state, not the history: a process that starts from it loads the history
    from the log when the GM undoes, redoes or rewinds, and ends exactly where a process without any
    snapshot ends."""
    contest = f"undo-{uuid.uuid4().hex[:8]}"
    writer = ContestService(store, snapshot_every=3)
    await writer.create(GM, request_for(contest))
    act = Player(writer, contest)
    await act(ANN, Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)))
    await act(GM, Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
    rolled = await act(GM, x.Roll(faces=[1, 10]))
    await act(ANN, x.PassHeroPoint(contestant="aria"))  # Ann lets it stand
    await act(GM, x.Roll(faces=[15, 3]))
    await act(ANN, x.PassHeroPoint(contestant="aria"))
    await writer.drain()
    await writer.save_snapshot(contest)
    snapshot = await writer.snapshot(contest)
    assert snapshot is not None and snapshot.elided > 0 and not snapshot.history

    async def state(service: ContestService) -> bytes:
        return encode(msgspec.structs.replace(await service.view(contest, GM), version=0))

    async def after(command: object, command_id: str) -> bytes:
        cold = ContestService(store, snapshot_every=0)  # starts from the snapshot
        await cold.execute(contest, GM, command_id, command)  # type: ignore[arg-type]
        from_snapshot = await state(cold)
        await store.delete_snapshots(contest)
        assert from_snapshot == await state(ContestService(store, snapshot_every=0))
        await writer.save_snapshot(contest)
        return from_snapshot

    before = await state(writer)
    assert await after(Undo(), "undo") != before
    assert await after(Redo(), "redo") == before
    rewound = await after(Rewind(to_version=rolled), "rewind")
    assert rewound != before
    at_rolled = ContestService(MemoryStore(), snapshot_every=0)
    for record in (await store.read(contest))[:rolled]:
        await at_rolled.store.append(contest, [record], record.version - 1)
    view = await at_rolled.view(contest, GM)
    assert encode(view.rules) == encode(msgspec.json.decode(rewound, type=type(view)).rules)


async def test_a_command_id_from_before_the_snapshot_is_still_known(store: EventStore) -> None:
    """A snapshot holds no command index: a process started from the snapshot, or from a snapshot that such a
    process wrote, finds a repeated command's events in the store by their ids and answers with the version
    its batch ended at, appending nothing."""
    contest = f"index-{uuid.uuid4().hex[:8]}"
    writer = ContestService(store, snapshot_every=0)
    await writer.create(GM, request_for(contest))
    first = await writer.execute(contest, ANN, "early", Declare(participant="aria", payload=x.Intent(bid=2)))
    second = await writer.execute(contest, GM, "later", Declare(participant="orc", payload=x.Intent(bid=3)))
    assert len(second.envelopes) > 1  # the declaration and its reveal: a batch of several events
    await writer.save_snapshot(contest)
    head = await store.head(contest)
    rewritten = ContestService(store, snapshot_every=0)
    assert await rewritten.save_snapshot(contest) == head  # written by a process that loaded the snapshot
    for _ in range(2):
        cold = ContestService(store, snapshot_every=0)
        again = await cold.execute(contest, ANN, "early", Declare(participant="aria", payload=x.Intent(bid=9)))
        assert again.repeated and again.version == first.version
        again = await cold.execute(contest, GM, "later", Declare(participant="orc", payload=x.Intent(bid=1)))
        assert again.repeated and again.version == second.version == head
        assert await store.head(contest) == head


async def test_a_repeat_from_before_the_snapshot_that_would_now_be_accepted_appends_nothing(
    store: EventStore,
) -> None:
    """Repeats the contest, restored from a snapshot, would accept again are still answered with their first
    result: an adjustment (decided again to a batch as long as the first), a declaration that would now
    complete the window (a longer batch: it and the reveal), and an undo (whose history is elided)."""
    contest = f"again-{uuid.uuid4().hex[:8]}"
    writer = ContestService(store, snapshot_every=0)
    await writer.create(GM, request_for(contest))
    adjust = x.Adjust(contestant="aria", delta=1, reason="r")
    adjusted = await writer.execute(contest, GM, "adjust", adjust)
    declared = await writer.execute(contest, ANN, "early", Declare(participant="aria", payload=x.Intent(bid=2)))
    assert len(declared.envelopes) == 1  # the orc has not declared: no reveal yet
    undone = await writer.execute(contest, GM, "undo", Undo())
    await writer.execute(contest, GM, "orc", Declare(participant="orc", payload=x.Intent(bid=3)))
    await writer.save_snapshot(contest)
    head = await store.head(contest)
    repeats = [
        (GM, "adjust", adjust, adjusted.version),
        (ANN, "early", Declare(participant="aria", payload=x.Intent(bid=9)), declared.version),
        (GM, "undo", Undo(), undone.version),
    ]
    for actor, command_id, command, version in repeats:
        cold = ContestService(store, snapshot_every=0)
        again = await cold.execute(contest, actor, command_id, command)
        assert again.repeated and again.version == version, command_id
        assert await store.head(contest) == head


async def test_a_snapshot_written_with_the_command_index_still_answers_a_repeated_command() -> None:
    """Snapshots written before the command index was left out hold it beside the contest: a process
    started from one still knows the commands it lists."""
    store = MemoryStore()
    writer = ContestService(store, snapshot_every=0)
    await writer.create(GM, request_for("old"))
    first = await writer.execute("old", ANN, "early", Declare(participant="aria", payload=x.Intent(bid=2)))
    head = await store.head("old")
    _, contest = await writer.load("old")
    stored = msgspec.json.decode(encode(trimmed(contest)))
    del stored["indexed_after"]  # the field those snapshots did not have
    old_blob = {"ruleset": "extended", "contest": stored, "commands": contest.commands}
    await store.save_snapshot("old", Snapshot(version=head, data=encode(old_blob)))
    assert contest.command_version(ANN.principal, "early") == first.version  # the old blob lists it
    cold = ContestService(store, snapshot_every=0)
    again = await cold.execute("old", ANN, "early", Declare(participant="aria", payload=x.Intent(bid=9)))
    assert again.repeated and again.version == first.version
    assert await store.head("old") == head


async def test_a_snapshot_does_not_grow_with_the_commands_played() -> None:
    """Snapshots are written every few events: one of a long contest costs no more than one of a short one
    (they used to hold every command's id, which made each cost in proportion to the contest's length)."""
    store = MemoryStore()
    service = ContestService(store, snapshot_every=0)
    await service.create(GM, request_for("long"))
    sizes = []
    for played in range(1, 601):
        delta = 1 if played % 2 else -1
        await service.execute("long", GM, f"adjust-{played}", x.Adjust(contestant="aria", delta=delta, reason="r"))
        if played in (60, 600):
            await service.save_snapshot("long")
            snapshot = await store.load_snapshot("long")
            assert snapshot is not None
            sizes.append(len(snapshot.data))
    short, long = sizes
    assert long < short + 100, sizes


async def test_each_declaration_draws_a_fresh_salt_and_other_commands_draw_none() -> None:
    drawn: list[bytes] = []

    def entropy(size: int) -> bytes:
        drawn.append(secrets.token_bytes(size))
        return drawn[-1]

    store = MemoryStore()
    service = ContestService(store, entropy=entropy)
    await service.create(GM, request_for("salts"))
    await play_to_the_end(service, "salts")  # four declarations among eleven commands
    declared = [msgspec.json.decode(r.data)["event"] for r in await store.read("salts") if b'"seal.declared"' in r.data]
    assert [d["salt"] for d in declared] == [salt.hex() for salt in drawn]
    assert len(drawn) == len({d["salt"] for d in declared}) == 4


def test_events_are_stamped_in_utc_to_the_millisecond_across_seconds() -> None:
    stamps = []
    for _ in range(6):
        before = datetime.now(UTC)
        stamp = utc_now()
        after = datetime.now(UTC)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp), stamp
        assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= datetime.fromisoformat(stamp) <= after
        stamps.append(stamp)
        time.sleep(0.3)
    assert len({stamp[:19] for stamp in stamps}) >= 2  # the whole second moved on at least once
