"""The ``get_timeline`` request of a GM or an auditor: the log as a viewer saw it, its view at a version, and
the verification of the stored log (what ``agon verify`` checks), and the table talk that viewer could read."""

from __future__ import annotations

from dataclasses import dataclass

from protocol import errors
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import ContestCreated
from protocol.messages import GetTimeline, Timeline, Verification
from protocol.talk import TalkLine
from server.engine.audit import audit
from server.engine.replay import replay, replay_viewer
from server.engine.ruleset import Viewer
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.talk import check_talk, may_read, setting_of
from server.talklog import TalkLog


async def answer(service: ContestService, request: GetTimeline, requester: Actor | None = None) -> Timeline:
    """``requester``: who asks (a GM or an auditor); the talk it is sent is what both it and the chosen viewer
    may read (an auditor reads no whisper unless the contest's setting lets it)."""
    if request.after is not None and request.at is not None:
        raise Refused(errors.BAD_FIELD, "after: continues an answer at the head; leave at out")
    rules, contest = await service.load(request.contest)
    envelopes = await service.events(request.contest)
    try:
        viewer = replay_viewer(request.viewer, contest.created.seats)
    except ValueError as exc:  # the same refusal as ``invite`` naming a seat the contest does not have
        raise Refused(errors.NO_SUCH_SEAT, str(exc)) from None
    shown = replay(rules, envelopes, viewer, request.at, request.after)
    report = audit(envelopes, ruleset_named)
    talk = await talk_of(service, request.contest, contest.created, contest.concluded is not None)
    problem = str(report.finding) if report.finding is not None else talk.problem
    verification = Verification(
        ok=problem is None,
        events=report.events,
        dice_checked=report.rolls_checked + talk.rolls_checked,
        dice_unchecked=report.dice_unchecked or talk.unchecked > 0,
        problem=problem,
    )
    setting = setting_of(contest.created)
    readers: list[Viewer | Actor] = [viewer] if requester is None else [viewer, requester]
    since = request.after or 0
    lines = [
        line
        for line in talk.lines
        if line.version >= since and all(may_read(line, r.principal, r.role, setting) for r in readers)
    ]
    return Timeline(
        id=request.id,
        contest=request.contest,
        head=shown.head,
        at=shown.at,
        viewer=request.viewer,
        read_only=await service.read_only(request.contest),
        entries=shown.entries,
        view=shown.view,
        verification=verification,
        after=request.after,
        revised=shown.revised,
        talk=lines,
    )


@dataclass(frozen=True)
class _Talk:
    lines: list[TalkLine]
    rolls_checked: int
    unchecked: int
    problem: str | None


async def talk_of(service: ContestService, contest: str, created: ContestCreated, concluded: bool) -> _Talk:
    """The contest's talk, checked as ``agon verify`` checks an export: once the contest is concluded its rolls
    against the talk seeds (which stay on the server), before that only their numbering and sums."""
    talk = TalkLog(service.store)
    entries = await talk.entries(contest)
    seeds = await talk.revealed(contest, entries) if concluded else {}
    report = check_talk(entries, seeds, concluded)
    lines = [entry for entry in entries if isinstance(entry, TalkLine)]
    problem = None if report.problem is None else f"table talk: {report.problem}"
    return _Talk(lines, report.rolls_checked, report.unchecked, problem)
