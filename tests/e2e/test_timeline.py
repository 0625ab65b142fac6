"""The GM console's timeline continues from the head it last saw: ``get_timeline`` with ``after`` sends only
the new entries, and the earlier ones an undo or a new batch re-marked, so the merged list is the whole one."""

from __future__ import annotations

import pytest

from clients.python.client import Refusal
from protocol.events import Declare, Undo
from protocol.messages import Timeline, TimelineEntry
from protocol.rulesets import extended as x
from tests.e2e.conftest import ServerFactory
from tests.e2e.table import seated_duel
from tests.net.duel import ARIA_WINS, ORC_FAILS


def merged(entries: list[TimelineEntry], answer: Timeline) -> list[TimelineEntry]:
    """What a client holds after applying an answer with ``after`` to the entries it had."""
    revised = {e.version: e for e in answer.revised}
    return [revised.get(e.version, e) for e in entries] + answer.entries


async def test_a_timeline_after_a_version_sends_only_what_is_new_and_what_an_undo_re_marked(
    agon_server: ServerFactory,
) -> None:
    table = await seated_duel(agon_server().ws_url)
    contest, gm, ann, bob = table.contest, table.gm, table.ann, table.bob
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=3)))
    first = await gm.command(contest, x.Roll(faces=ARIA_WINS))
    whole = await gm.timeline(contest)
    assert whole.head == first.version and whole.after is None and whole.revised == []
    held = whole.entries

    second = await gm.command(contest, x.Roll(faces=ORC_FAILS))
    new = await gm.timeline(contest, after=whole.head)
    assert new.after == whole.head and new.head == second.version
    assert [e.version for e in new.entries] == list(range(first.version + 1, second.version + 1))
    # the first exchange's end became a point the GM may rewind to: re-marked, nothing else is resent
    assert [(e.version, e.rewind_to) for e in new.revised] == [(first.version, True)]
    held = merged(held, new)
    assert held == (await gm.timeline(contest)).entries

    undone = await gm.command(contest, Undo())
    after_undo = await gm.timeline(contest, after=new.head)
    assert [e.version for e in after_undo.entries] == [undone.version]
    # the undone exchange is greyed out in the entries the client already holds
    assert {e.version for e in after_undo.revised if e.undone} == set(range(first.version + 1, second.version + 1))
    held = merged(held, after_undo)
    full = await gm.timeline(contest)
    assert held == full.entries and any(e.undone for e in full.entries)
    assert after_undo.view == full.view

    nothing = await gm.timeline(contest, after=full.head)
    assert nothing.entries == [] and nothing.revised == []
    with pytest.raises(Refusal) as both:
        await gm.timeline(contest, at=2, after=full.head)
    assert both.value.code == "protocol/bad_field" and "after" in str(both.value)
    await table.close()


async def test_a_timeline_as_a_seat_the_contest_does_not_have_is_refused_as_an_invitation_for_it_is(
    agon_server: ServerFactory,
) -> None:
    table = await seated_duel(agon_server().ws_url)
    contest, gm = table.contest, table.gm
    head = (await gm.timeline(contest)).head
    for seat in ("nobody", "Ann", "~spectators"):  # no such seat, a seat id in the wrong case, a typo
        with pytest.raises(Refusal) as invited:
            await gm.invite(contest, seat)
        with pytest.raises(Refusal) as shown:
            await gm.timeline(contest, viewer=seat)
        assert invited.value.code == shown.value.code == "contest/no_such_seat"
        assert shown.value.error.contest == contest and repr(seat) in shown.value.message
    assert (await gm.timeline(contest)).head == head  # nothing was written
    await table.close()
