"""The auditor's commands: export a log, verify an exported log, replay a contest as a viewer saw it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from clients.python import render
from protocol.codec import decode, encode, to_builtins
from protocol.common import SPECTATOR, Actor
from protocol.errors import Refused
from protocol.events import ContestCreated, Declared, Envelope, Event, Revealed
from server.cli import UserError
from server.datadir import sqlite_path
from server.engine.audit import Finding, audit
from server.engine.contest import Contest, fold
from server.engine.names import Naming, naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import ENGINE_EVENTS, describe
from server.engine.views import contest_view, may_see, shown_event, viewer_for
from server.rulesets import ruleset as ruleset_named
from server.store import EventStore, open_store


async def export_contest(store_spec: str, contest: str, output: str) -> int:
    target = None if output == "-" else Path(output)
    if target is not None and not target.parent.is_dir():
        raise UserError(f"-o {output}: no folder {str(target.parent)!r} to write into")
    store = open_existing(store_spec)
    try:
        records = await store.read(contest)
    finally:
        await store.close()
    if not records:
        raise UserError(f"no contest {contest!r} in {store_spec}")
    lines = b"".join(r.data + b"\n" for r in records)
    if target is None:
        sys.stdout.buffer.write(lines)
    else:
        try:
            target.write_bytes(lines)
        except OSError as error:
            raise UserError(f"-o {output}: cannot write: {error.strerror}") from None
    return 0


def open_existing(spec: str) -> EventStore:
    """Open a store to read from: a sqlite file that does not exist is a mistake, never created."""
    path = sqlite_path(spec)
    if path is not None and not path.is_file():
        raise UserError(f"no store at {path} (set AGON_DATA or pass --store)")
    try:
        return open_store(spec)
    except ValueError as error:
        raise UserError(str(error), 2) from None


def _read_file(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror}") from None


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
    from server.net.auth import Tokens, previous_secrets, server_secret
    from server.net.settings import Settings
    from server.service import ContestService

    envelopes, finding = read_log(_read_file(path))
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
    tokens = Tokens(
        server_secret(settings.data_dir, settings.secret),
        previous=previous_secrets(settings.data_dir, settings.previous_secret, settings.previous_until),
        public_key=settings.jwt_public_key,
    )
    token = tokens.issue(contest, "auditor", AUDITOR, settings.token_ttl)
    print(f"agon import: stored contest {contest!r} read-only ({len(envelopes)} events, verified)")
    print(f"open it in the replay viewer: {url.rstrip('/')}/#t={token}")
    return 0


def verify_file(path: str) -> int:
    envelopes, finding = read_log(_read_file(path))
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
    """``gm``, ``spectator`` or ``player:SEAT`` for a seat the contest has (else UserError)."""
    if text == "gm":
        gm = next(s for s in created.seats if s.role == "gm")
        return Actor(gm.id, "gm")
    if text == "spectator":
        return Actor(SPECTATOR, "spectator")  # the live server's spectator principal, never a seat's
    if text.startswith("player:"):
        seat = text.removeprefix("player:")
        players = [s.id for s in created.seats if s.role == "player"]
        if seat not in players:
            raise UserError(f"--as {text}: no player seat {seat!r} (seats: {', '.join(players) or 'none'})", 2)
        return Actor(seat, "player")
    raise UserError(f"--as {text}: use gm, player:SEAT or spectator", 2)


class Line(msgspec.Struct, frozen=True):
    """One event of the timeline as a viewer may see it."""

    version: int
    at: str
    kind: str
    actor: str
    text: str
    sealed: bool  # the viewer sees only the commitment
    undone: bool  # not in the effective history (undone or rewound, and not redone)


def timeline_line(
    ruleset: Ruleset[Any], envelope: Envelope, event: Event, viewer: Viewer, effective: set[int], naming: Naming
) -> Line:
    """One line of the timeline, written from the event as this viewer may see it (``shown_event``)."""
    step = isinstance(event, Declared | Revealed) or not isinstance(event, ENGINE_EVENTS)
    return Line(
        version=envelope.version,
        at=envelope.at,
        kind=str(type(event).__struct_config__.tag),
        actor=envelope.actor.principal,
        text=describe(ruleset, event, envelope.actor, naming),
        sealed=not may_see(envelope, viewer),
        undone=step and envelope.version not in effective,
    )


async def replay(source: str, store_spec: str, at: int | None, viewer_text: str, shape: str = "text") -> int:
    path = Path(source)
    if path.is_file():
        envelopes, finding = read_log(_read_file(source))
        if finding is not None:
            raise UserError(f"{source}: {finding}")
    elif path.exists():
        raise UserError(f"{source} is a folder, not an exported log")
    elif looks_like_a_file(source):
        raise UserError(f"no such file: {source}")
    else:
        store = open_existing(store_spec)
        try:
            envelopes = [decode(r.data, Envelope) for r in await store.read(source)]
        finally:
            await store.close()
        if not envelopes:
            raise UserError(f"no file and no contest named {source!r} (in {store_spec})")
    sys.stdout.write(render_replay(envelopes, at, viewer_text, shape))
    return 0


def looks_like_a_file(source: str) -> bool:
    """A path, not a contest id: it names a folder or has a file suffix."""
    return "/" in source or os.sep in source or Path(source).suffix.lower() in FILE_SUFFIXES


FILE_SUFFIXES = {".jsonl", ".json", ".ndjson", ".log", ".txt", ".agon"}


def render_replay(envelopes: Sequence[Envelope], at: int | None, viewer_text: str, shape: str) -> str:
    if not envelopes or not isinstance(envelopes[0].event, ContestCreated):
        raise UserError("no contest in that source")
    created = envelopes[0].event
    head = envelopes[-1].version
    if at is not None and at > head:
        raise UserError(f"--at {at}: the contest has {head} events", 2)
    envelopes = [e for e in envelopes if at is None or e.version <= at]
    actor = parse_viewer(viewer_text, created)
    try:
        rules = ruleset_named(created.ruleset)
    except Refused as refused:
        raise UserError(refused.message) from None
    viewer = viewer_for(actor, created.seats)
    contest: Contest[Any] | None = None
    shown: list[tuple[Envelope, Event, Naming]] = []
    for envelope in envelopes:
        after = fold(rules, [envelope], contest)
        event = shown_event(rules, (contest or after).rules, envelope, viewer)
        if event is not None:  # the ruleset may hide an event from this viewer whole
            named = naming(rules, created.seats, contest.rules if contest else None, after.rules)
            shown.append((envelope, event, named))
        contest = after
    assert contest is not None
    effective = {step.version for step in contest.steps()}
    timeline = [timeline_line(rules, envelope, event, viewer, effective, named) for envelope, event, named in shown]
    view = json.loads(encode(contest_view(rules, contest, viewer)))
    match shape:
        case "json":
            return json.dumps({"timeline": to_builtins(timeline), "view": view}, ensure_ascii=False, indent=2) + "\n"
        case "markdown":
            return _markdown(created, timeline, view, viewer_text)
        case _:
            return _text(timeline, view, viewer_text)


def _text(timeline: Sequence[Line], view: Any, viewer_text: str) -> str:
    out = []
    for line in timeline:
        marks = (" [sealed]" if line.sealed else "") + (" [undone]" if line.undone else "")
        out.append(f"{line.version:>5}  {line.at}  {line.kind}{marks}  {line.text}")
    out.append(f"--- the contest at version {view['version']}, as {viewer_text} saw it ---")
    out.append(render.text(view))
    return "\n".join(out) + "\n"


def _markdown(created: ContestCreated, timeline: Sequence[Line], view: Any, viewer_text: str) -> str:
    title = created.title or view["contest"]
    out = [
        f"# {title}",
        "",
        f"*A contest under the `{created.ruleset}` rules, as {viewer_text} saw it.*",
        "",
        "## What happened",
        "",
    ]
    for line in timeline:
        text = f"**{line.version}.** {line.text}"
        if line.sealed:
            text += " *(sealed)*"
        out.append(f"- ~~{text}~~ *(undone)*" if line.undone else f"- {text}")
    out += ["", f"## Where it stands (version {view['version']})", "", "```", render.text(view), "```", ""]
    return "\n".join(out)
