"""The auditor's commands: export a log, verify an exported log, replay a contest as a viewer saw it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from clients.python import render
from protocol.codec import decode, encode, to_builtins
from protocol.common import SPECTATOR, Actor
from protocol.errors import Refused
from protocol.events import ContestCreated, Declared, Envelope, Event, Revealed
from protocol.talk import TalkLine
from server.datadir import sqlite_path
from server.engine.audit import Finding, audit
from server.engine.contest import Contest, fold
from server.engine.names import Naming, naming
from server.engine.ruleset import Ruleset, Viewer
from server.engine.timeline import ENGINE_EVENTS, describe
from server.engine.views import contest_view, may_see, shown_event, viewer_for
from server.rulesets import ruleset as ruleset_named
from server.store import EventStore, open_store
from server.talk import may_read, setting_of, spoken
from server.talklog import Entry, TalkLog, checked, read_talk
from server.user_error import UserError


async def export_contest(store_spec: str, contest: str, output: str) -> int:
    target = None if output == "-" else Path(output)
    if target is not None and not target.parent.is_dir():
        raise UserError(f"-o {output}: no folder {str(target.parent)!r} to write into")
    store = open_existing(store_spec)
    try:
        records = await store.read(contest)
        talk = await TalkLog(store).export(contest, [decode(r.data, Envelope) for r in records])
    finally:
        await store.close()
    if not records:
        raise UserError(f"no contest {contest!r} in {store_spec}")
    lines = b"".join(r.data + b"\n" for r in records) + talk
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
    """Decode JSON lines; a line that does not decode is reported as the event at that line. The table talk an
    export holds after the events is left out (``read_export`` reads it)."""
    exported = read_export(data)
    return exported.envelopes, exported.finding


@dataclass(frozen=True)
class Exported:
    """An exported contest: its events, then its table talk (lines, and the numbers of whispers left out) and
    the talk seeds it reveals; the first thing that does not read."""

    envelopes: list[Envelope]
    talk: list[Entry]
    seeds: list[bytes]
    finding: Finding | None
    talk_problem: str | None = None


def read_export(data: bytes) -> Exported:
    """The events, one JSON line each, then the table talk's lines (``{"talk": …}``, ``{"talk_withheld": n}``,
    ``{"talk_seed": …}``): a line of talk is told from an event by its first member."""
    envelopes: list[Envelope] = []
    lines = [(number, line) for number, line in enumerate(data.splitlines(), start=1) if line.strip()]
    for index, (line_number, line) in enumerate(lines):
        if line.lstrip().startswith(b'{"talk'):
            entries, seeds, problem = read_talk([text.strip() for _, text in lines[index:]], line_number)
            return Exported(envelopes, entries, seeds, None, problem)
        try:
            envelopes.append(decode(line, Envelope))
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            return Exported(envelopes, [], [], Finding(line_number, f"unreadable (line {line_number}): {exc}"))
    return Exported(envelopes, [], [], None)


async def import_file(path: str, store_spec: str, url: str) -> int:
    """Verify an exported log, then store it read-only and print an auditor's link to open it in a browser."""
    from protocol.common import AUDITOR
    from server.net.auth import Tokens, previous_secrets, server_secret
    from server.net.settings import Settings
    from server.service import ContestService

    exported = read_export(_read_file(path))
    envelopes, finding = exported.envelopes, exported.finding
    if finding is None:
        finding = audit(envelopes, ruleset_named).finding
    problem = str(finding) if finding is not None else None if envelopes else "the file holds no events"
    problem = problem or exported.talk_problem or checked(exported.talk, exported.seeds, envelopes)[2]
    if problem is not None:
        print(f"agon import: not imported: {problem}", file=sys.stderr)
        return 1
    settings = Settings.from_env(store=store_spec)
    store = open_store(store_spec)
    try:
        contest = await ContestService(store).import_log(envelopes)
        await TalkLog(store).import_talk(contest, exported.talk, exported.seeds)
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
    exported = read_export(_read_file(path))
    envelopes, finding = exported.envelopes, exported.finding
    if finding is None:
        report = audit(envelopes, ruleset_named)
        finding = report.finding
    if finding is not None:
        print(f"agon verify: FAILED at {finding}", file=sys.stderr)
        return 1
    talk_dice, talk_unchecked, problem = checked(exported.talk, exported.seeds, envelopes)
    problem = exported.talk_problem or problem
    if problem is not None:
        print(f"agon verify: FAILED at {problem}", file=sys.stderr)
        return 1
    dice = f"{report.rolls_checked} dice checked against the revealed seed"
    if report.dice_unchecked:
        dice += "; server dice unchecked: the seed is revealed when the contest is concluded"
    talk = ""
    if exported.talk:
        talk = f", {len(exported.talk)} lines of table talk numbered without a gap"
        talk += f", {talk_dice} talk dice checked against the revealed talk seed" if talk_dice else ""
        if talk_unchecked:
            talk += f"; {talk_unchecked} talk rolls unchecked: the talk seed is revealed when the contest is concluded"
    print(f"agon verify: ok: {report.events} events, hash chain intact, commitments kept, {dice}, fold clean{talk}")
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
    kind = type(event)
    step = kind is Declared or kind is Revealed or kind not in ENGINE_EVENTS
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
    talk: list[Entry] = []
    if path.is_file():
        exported = read_export(_read_file(source))
        envelopes, finding, talk = exported.envelopes, exported.finding, exported.talk
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
            talk = await TalkLog(store).entries(source)
        finally:
            await store.close()
        if not envelopes:
            raise UserError(f"no file and no contest named {source!r} (in {store_spec})")
    sys.stdout.write(render_replay(envelopes, at, viewer_text, shape, talk))
    return 0


def looks_like_a_file(source: str) -> bool:
    """A path, not a contest id: it names a folder or has a file suffix."""
    return "/" in source or os.sep in source or Path(source).suffix.lower() in FILE_SUFFIXES


FILE_SUFFIXES = {".jsonl", ".json", ".ndjson", ".log", ".txt", ".agon"}


def render_replay(
    envelopes: Sequence[Envelope], at: int | None, viewer_text: str, shape: str, talk: Sequence[Entry] = ()
) -> str:
    """The story of the contest as the viewer saw it up to ``at``, its view there, and the table talk it could
    read by then."""
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
    setting = setting_of(created)
    said = [
        line
        for line in talk
        if isinstance(line, TalkLine)
        and line.version <= contest.version
        and may_read(line, actor.principal, actor.role, setting)
    ]
    match shape:
        case "json":
            shown_talk = {"talk": to_builtins(said)} if said else {}
            document = {"timeline": to_builtins(timeline), "view": view, **shown_talk}
            return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        case "markdown":
            return _markdown(created, timeline, view, viewer_text, said)
        case _:
            return _text(timeline, view, viewer_text, said)


def _text(timeline: Sequence[Line], view: Any, viewer_text: str, said: Sequence[TalkLine] = ()) -> str:
    out = []
    for line in timeline:
        marks = (" [sealed]" if line.sealed else "") + (" [undone]" if line.undone else "")
        out.append(f"{line.version:>5}  {line.at}  {line.kind}{marks}  {line.text}")
    if said:
        out.append(f"--- the table talk {viewer_text} could read (by the version it was said at) ---")
        out += [f"{line.version:>5}  {line.at}  {spoken(line)}" for line in said]
    out.append(f"--- the contest at version {view['version']}, as {viewer_text} saw it ---")
    out.append(render.text(view))
    return "\n".join(out) + "\n"


def _markdown(
    created: ContestCreated, timeline: Sequence[Line], view: Any, viewer_text: str, said: Sequence[TalkLine] = ()
) -> str:
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
    if said:
        out += ["", "## Table talk", ""]
        out += [f"- **{line.version}.** {spoken(line)}" for line in said]
    out += ["", f"## Where it stands (version {view['version']})", "", "```", render.text(view), "```", ""]
    return "\n".join(out)
