"""The ``get_timeline`` request of a GM or an auditor: the log as a viewer saw it, its view at a version, and
the verification of the stored log (what ``agon verify`` checks)."""

from __future__ import annotations

from protocol import errors
from protocol.errors import Refused
from protocol.messages import GetTimeline, Timeline, Verification
from server.engine.audit import audit
from server.engine.replay import replay, replay_viewer
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService


async def answer(service: ContestService, request: GetTimeline) -> Timeline:
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
    verification = Verification(
        ok=report.finding is None,
        events=report.events,
        dice_checked=report.rolls_checked,
        dice_unchecked=report.dice_unchecked,
        problem=None if report.finding is None else str(report.finding),
    )
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
    )
