"""Races between writers of one contest (two processes on one store): one effect, one order, no fork."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec
import pytest

from protocol.errors import Refused
from protocol.events import Declare, Envelope, ReissueSeat, Rewind, Undo
from protocol.rulesets import extended as x
from server.engine.audit import audit
from server.engine.contest import Contest, fold
from server.rulesets import ruleset
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.store import EventStore, MemoryStore, open_store
from server.store.port import ConflictError, Record
from tests.engine.table import ANN, GM, duel


@pytest.fixture
async def two(spec: str) -> AsyncIterator[tuple[ContestService, ContestService]]:
    stores: list[EventStore] = [MemoryStore()] * 2 if spec == "memory:" else [open_store(spec), open_store(spec)]
    yield ContestService(stores[0]), ContestService(stores[1])
    for store in set(stores):
        await store.close()


async def started(services: tuple[ContestService, ContestService]) -> str:
    contest = f"race-{uuid.uuid4().hex[:8]}"
    await services[0].create(GM, msgspec.structs.replace(duel(), contest=contest))
    for i in range(3):
        await services[0].execute(contest, GM, f"setup-{i}", x.Adjust(contestant="orc", delta=-1, reason=f"{i}"))
    await services[1].load(contest)  # both processes hold the contest
    return contest


async def clean_log(service: ContestService, contest: str) -> list[Envelope]:
    envelopes = await service.events(contest)
    assert [e.version for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert audit(envelopes, ruleset_named).finding is None
    for one in (service,):
        one.forget(contest)
        _, state = await one.load(contest)
        full = fold(ruleset("extended"), envelopes)
        # A snapshot holds neither the history nor the command index: all the rest is the fold's.
        assert _served(state) == _served(full)
        assert state.elided + state.effective == full.effective
    return envelopes


def _served(contest: Contest[Any]) -> Contest[Any]:
    return msgspec.structs.replace(
        contest,
        history=[],
        effective=0,
        elided=0,
        elided_last=0,
        commands={},
        batch_ends={},
        indexed_after=0,
        lineage=[],
    )


async def outcome(work: object) -> object:
    try:
        return await work  # type: ignore[misc]
    except Refused as refused:
        return refused.code


async def test_the_same_command_id_sent_to_two_processes_at_once_takes_effect_once(
    two: tuple[ContestService, ContestService],
) -> None:
    contest = await started(two)
    adjust = x.Adjust(contestant="orc", delta=-2, reason="one blow")
    results = await asyncio.gather(*(service.execute(contest, GM, "same-id", adjust) for service in two))
    assert results[0].version == results[1].version  # (both may say "not repeated" when their batches are
    # byte-identical, decided in the same millisecond: the store then acknowledges the second as the first)
    envelopes = await clean_log(two[0], contest)
    assert Counter(e.command_id for e in envelopes)["same-id"] == 1


async def test_a_gm_undo_racing_a_players_command_leaves_one_order(two: tuple[ContestService, ContestService]) -> None:
    contest = await started(two)
    undo = two[0].execute(contest, GM, "undo", Undo())
    declare = two[1].execute(contest, ANN, "declare", Declare(participant="aria", payload=x.Intent(action="lunge")))
    results = await asyncio.gather(outcome(undo), outcome(declare))
    envelopes = await clean_log(two[0], contest)
    stored = {e.command_id for e in envelopes}
    for command_id, result in zip(("undo", "declare"), results, strict=True):
        assert (command_id in stored) == (not isinstance(result, str)), (command_id, result)


async def test_two_gms_rewinding_at_once_leave_one_order(two: tuple[ContestService, ContestService]) -> None:
    contest = await started(two)
    results = await asyncio.gather(
        outcome(two[0].execute(contest, GM, "rewind-a", Rewind(to_version=3))),
        outcome(two[1].execute(contest, GM, "rewind-b", Rewind(to_version=4))),
    )
    envelopes = await clean_log(two[0], contest)
    stored = [e.command_id for e in envelopes if e.command_id.startswith("rewind")]
    assert sorted(stored) == sorted(
        c for c, r in zip(("rewind-a", "rewind-b"), results, strict=True) if not isinstance(r, str)
    )
    assert stored  # at least one rewind took effect


async def test_two_writers_sending_one_command_after_another_are_never_turned_away(
    two: tuple[ContestService, ContestService],
) -> None:
    """Two GMs on two processes adjusting at full speed: the slower one is never starved into a refusal."""
    contest = await started(two)

    async def adjust(service: ContestService, who: str) -> list[int]:
        return [
            (await service.execute(contest, GM, f"{who}-{i}", x.Adjust(contestant="aria", delta=1, reason=who))).version
            for i in range(40)
        ]

    first, second = await asyncio.gather(adjust(two[0], "a"), adjust(two[1], "b"))
    assert len(set(first + second)) == 80
    envelopes = await clean_log(two[0], contest)
    assert sum(1 for e in envelopes if e.command_id.startswith(("a-", "b-"))) == 80


class _Outpaced(MemoryStore):
    """A store shared with another process that wins the next ``races`` races: before each of this
    process's appends it appends a command of its own (as SQLite's lock lets the writer that just committed
    commit again while the other one waits)."""

    def __init__(self, races: int) -> None:
        super().__init__()
        self.races = races
        self.rival: ContestService | None = None

    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        rival, self.rival = self.rival, None  # (the rival's own appends go straight in)
        if rival is not None and self.races > 0:
            self.races -= 1
            await rival.execute(
                contest, GM, f"rival-{self.races}", x.Adjust(contestant="aria", delta=1, reason="rival")
            )
        self.rival = rival
        return await super().append(contest, records, expected_version)


async def test_a_writer_that_loses_many_races_in_a_row_to_a_busy_one_still_gets_its_command_in() -> None:
    store = _Outpaced(races=40)
    rival, slower = ContestService(store), ContestService(store)
    contest = await started((rival, slower))
    store.rival = rival
    result = await slower.execute(contest, GM, "late", x.Adjust(contestant="aria", delta=1, reason="late"))
    envelopes = await clean_log(rival, contest)
    assert store.races == 0  # the rival won every race it ran
    assert [e.command_id for e in envelopes][-1] == "late"
    assert result.version == envelopes[-1].version


class _Stuck(MemoryStore):
    """A store that, once ``stuck``, refuses every append as a conflict with nothing new to catch up on."""

    stuck = False

    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        if self.stuck:
            raise ConflictError(f"{contest}: stuck")
        return await super().append(contest, records, expected_version)


async def test_a_conflict_that_brings_nothing_new_is_refused_after_a_few_attempts() -> None:
    store = _Stuck()
    service = ContestService(store)
    contest = await started((service, service))
    store.stuck = True
    with pytest.raises(Refused) as caught:
        await service.execute(contest, GM, "stuck", x.Adjust(contestant="aria", delta=1, reason="stuck"))
    assert caught.value.code == "store/conflict"
    store.stuck = False
    assert "stuck" not in {e.command_id for e in await service.events(contest)}


async def test_a_link_reissued_by_another_process_never_writes_again(
    two: tuple[ContestService, ContestService],
) -> None:
    """Process 2 holds the contest when process 1 re-issues Ann's link: a command with the old link's
    generation is refused on process 2 (checked against the head it would be appended on, not the state it
    has cached), and one with the new link's generation is taken though process 2 had not read the re-issue."""
    contest = await started(two)
    await two[0].execute(contest, GM, "reissue", ReissueSeat(seat=ANN.principal))
    lunge = Declare(participant="aria", payload=x.Intent(action="lunge", bid=3))
    assert await outcome(two[1].execute(contest, ANN, "old-link", lunge, generation=0)) == "auth/revoked"
    ack = await two[1].execute(contest, ANN, "new-link", lunge, generation=1)
    envelopes = await clean_log(two[1], contest)
    assert [e.command_id for e in envelopes if e.actor.principal == ANN.principal] == ["new-link"]
    assert ack.version == envelopes[-1].version
