"""The auditor's commands: export a log, verify an exported log, replay a contest as a viewer saw it."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from protocol.codec import decode, encode
from protocol.common import Actor
from protocol.errors import Refused
from protocol.events import ContestCreated, Envelope
from server.engine.audit import Finding, audit
from server.engine.contest import fold
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import describe
from server.engine.views import contest_view, event_for, may_see, viewer_for
from server.rulesets import ruleset as ruleset_named
from server.store import open_store


async def export_contest(store_spec: str, contest: str, output: str) -> int:
    store = open_store(store_spec)
    try:
        records = await store.read(contest)
    finally:
        await store.close()
    if not records:
        print(f"agon export: no contest {contest!r} in {store_spec}", file=sys.stderr)
        return 1
    lines = b"".join(r.data + b"\n" for r in records)
    if output == "-":
        sys.stdout.buffer.write(lines)
    else:
        Path(output).write_bytes(lines)
    return 0


def read_log(data: bytes) -> tuple[list[Envelope], Finding | None]:
    """Decode JSON lines; a line that does not decode is reported as the event at that line."""
    envelopes: list[Envelope] = []
    for line_number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            envelopes.append(decode(line, Envelope))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return envelopes, Finding(line_number, f"unreadable (line {line_number}): {exc}")
    return envelopes, None


async def import_file(path: str, store_spec: str, url: str) -> int:
    """Verify an exported log, then store it read-only and print an auditor's link to open it in a browser."""
    from protocol.common import AUDITOR
    from server.net.auth import Tokens, server_secret
    from server.net.settings import Settings
    from server.service import ContestService

    envelopes, finding = read_log(Path(path).read_bytes())
    if finding is None:
        finding = audit(envelopes, ruleset_named).finding
    if finding is not None or not envelopes:
        print(f"agon import: not imported: {finding or 'the file holds no events'}", file=sys.stderr)
        return 1
    settings = Settings.from_env(store=store_spec)
    store = open_store(store_spec)
    try:
        contest = await ContestService(store).import_log(envelopes)
    except Refused as refused:
        print(f"agon import: {refused.code}: {refused.message}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    tokens = Tokens(server_secret(settings.data_dir, settings.secret))
    token = tokens.issue(contest, "auditor", AUDITOR, settings.token_ttl)
    print(f"agon import: stored contest {contest!r} read-only ({len(envelopes)} events, verified)")
    print(f"open it in the replay viewer: {url.rstrip('/')}/#t={token}")
    return 0


def verify_file(path: str) -> int:
    envelopes, finding = read_log(Path(path).read_bytes())
    if finding is None:
        report = audit(envelopes, ruleset_named)
        finding = report.finding
    if finding is not None:
        print(f"agon verify: FAILED at {finding}", file=sys.stderr)
        return 1
    dice = f"{report.rolls_checked} dice checked against the revealed seed"
    if report.dice_unchecked:
        dice += "; server dice unchecked: the seed is revealed when the contest is concluded"
    print(f"agon verify: ok: {report.events} events, hash chain intact, commitments kept, {dice}, fold clean")
    return 0


def parse_viewer(text: str, created: ContestCreated) -> Actor:
    if text == "gm":
        gm = next(s for s in created.seats if s.role == "gm")
        return Actor(gm.id, "gm")
    if text == "spectator":
        return Actor("spectator", "spectator")
    if text.startswith("player:"):
        return Actor(text.removeprefix("player:"), "player")
    raise ValueError(f"--as: {text!r} is not gm, player:SEAT or spectator")


def timeline_line(ruleset: Ruleset[Any], envelope: Envelope, viewer: Viewer) -> str:
    """One line of the timeline, written from the event as this viewer may see it."""
    shown = event_for(envelope, viewer)
    kind = type(shown.event).__struct_config__.tag
    sealed = " [sealed]" if not may_see(envelope, viewer) else ""
    text = describe(ruleset, shown.event, envelope.actor.principal)
    return f"{envelope.version:>5}  {envelope.at}  {kind}{sealed}  {text}"


async def replay(source: str, store_spec: str, at: int | None, viewer_text: str) -> int:
    if Path(source).is_file():
        envelopes, finding = read_log(Path(source).read_bytes())
        if finding is not None:
            print(f"agon replay: {finding}", file=sys.stderr)
            return 1
    else:
        store = open_store(store_spec)
        try:
            envelopes = [decode(r.data, Envelope) for r in await store.read(source)]
        finally:
            await store.close()
    return _print_replay(envelopes, at, viewer_text)


def _print_replay(envelopes: Sequence[Envelope], at: int | None, viewer_text: str) -> int:
    if not envelopes or not isinstance(envelopes[0].event, ContestCreated):
        print("agon replay: no contest in that source", file=sys.stderr)
        return 1
    created = envelopes[0].event
    envelopes = [e for e in envelopes if at is None or e.version <= at]
    try:
        actor = parse_viewer(viewer_text, created)
        rules = ruleset_named(created.ruleset)
    except (ValueError, Refused) as exc:
        print(f"agon replay: {exc}", file=sys.stderr)
        return 2
    viewer = viewer_for(actor, created.seats)
    for envelope in envelopes:
        print(timeline_line(rules, envelope, viewer))
    contest = fold(rules, envelopes)
    view = contest_view(rules, contest, viewer)
    print(f"--- state at version {contest.version} as {viewer_text} ---")
    print(json.dumps(json.loads(encode(view)), indent=2, sort_keys=True))
    return 0
