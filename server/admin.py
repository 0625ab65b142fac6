"""``agon admin``: what an operator does to a running installation's store.

- ``list``: every contest with its ruleset, state (running, concluded, imported), events and bytes.
- ``archive CONTEST... --to DIR``: for each concluded contest, export its log (and its table talk, as
  ``agon export`` does) to ``DIR/CONTEST.jsonl`` (``DIR`` and its parents are created when missing), verify
  the file (hash chain, commitments, dice, fold, the talk's numbering and rolls) and that it holds exactly
  the stored events, and only then remove the contest (and its talk) from the store.
  ``agon import DIR/CONTEST.jsonl`` brings it back read-only.
- ``rotate-secret``: a new token secret in the data folder; the old one stays accepted for a grace period
  (see ``server.net.auth``), so nobody is logged out by the rotation itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from protocol.codec import decode
from protocol.events import ContestCreated, Envelope
from server.audit import open_existing, read_export
from server.engine.audit import audit
from server.engine.contest import fold
from server.rulesets import ruleset as ruleset_named
from server.service import IMPORTED
from server.store import EventStore, Record
from server.store.port import CONTEST_PAGE
from server.talklog import TalkLog, checked
from server.user_error import UserError


async def _describe(store: EventStore, contest: str, records: list[Record]) -> dict[str, Any]:
    envelopes = [decode(r.data, Envelope) for r in records]
    created = envelopes[0].event
    if not isinstance(created, ContestCreated):
        raise UserError(f"{contest}: the log does not start with the contest's creation")
    state = fold(ruleset_named(created.ruleset), envelopes)
    if await store.load_secret(contest, IMPORTED) is not None:
        status = "imported"
    else:
        status = "concluded" if state.concluded is not None else "running"
    return {
        "contest": contest,
        "ruleset": created.ruleset,
        "title": created.title,
        "state": status,
        "events": len(records),
        "bytes": sum(len(r.data) for r in records),
    }


async def list_contests(spec: str, as_json: bool) -> int:
    """Page by page (``CONTEST_PAGE`` ids at a time), each page's rows printed before the next is read, so a store
    of any size is listed in bounded memory and its first rows show at once. A contest whose log cannot be read
    is listed as ``damaged`` (and why, on stderr) between the others, and the exit code is 1."""
    store = open_existing(spec)
    damaged = 0
    try:
        page = await store.contests_page("", CONTEST_PAGE)
        if not as_json:
            print(f"{'CONTEST':<24} {'RULESET':<12} {'STATE':<10} {'EVENTS':>7} {'BYTES':>10}  TITLE")
        while page:
            for contest in page:
                records = await store.read(contest)
                if not records:
                    continue
                try:
                    row = await _describe(store, contest, records)
                except Exception as error:  # one damaged log must not hide every contest listed after it
                    damaged += 1
                    print(f"agon admin list: {contest}: its log cannot be read: {error}", file=sys.stderr, flush=True)
                    row = _damaged(contest, records)
                _print_row(row, as_json)
            page = await store.contests_page(page[-1], CONTEST_PAGE) if len(page) == CONTEST_PAGE else []
    finally:
        await store.close()
    return 1 if damaged else 0


def _damaged(contest: str, records: list[Record]) -> dict[str, Any]:
    events, size = len(records), sum(len(r.data) for r in records)
    return {"contest": contest, "ruleset": "?", "title": "", "state": "damaged", "events": events, "bytes": size}


def _print_row(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row, ensure_ascii=False), flush=True)
        return
    print(
        f"{row['contest']:<24} {row['ruleset']:<12} {row['state']:<10} {row['events']:>7} {row['bytes']:>10}"
        f"  {row['title']}",
        flush=True,
    )


async def archive(spec: str, contests: list[str], folder: str) -> int:
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise UserError(f"--to {folder}: not a folder")
    target.mkdir(parents=True, exist_ok=True)  # an OSError (permissions) is one line: server.cli._plain
    store = open_existing(spec)
    try:
        for contest in contests:
            records = await store.read(contest)
            if not records:
                raise UserError(f"no contest {contest!r} in the store")
            described = await _describe(store, contest, records)
            if described["state"] != "concluded":
                raise UserError(f"{contest} is {described['state']}: only concluded contests are archived")
            path = target / f"{contest}.jsonl"
            talk = await TalkLog(store).export(contest, [decode(r.data, Envelope) for r in records])
            data = b"".join(r.data + b"\n" for r in records) + talk
            path.write_bytes(data)
            written = path.read_bytes()
            exported = read_export(written)
            envelopes = exported.envelopes
            finding = exported.finding or audit(envelopes, ruleset_named).finding
            problem = exported.talk_problem or checked(exported.talk, exported.seeds, envelopes)[2]
            if finding is not None or problem is not None or written != data or len(envelopes) != len(records):
                why = finding or problem
                raise UserError(f"{contest}: the archive {path} does not verify ({why}); nothing was removed")
            await store.remove(contest)
            print(
                f"archived {contest}: {len(records)} events in {path}, verified, removed from the store "
                f"(agon import {path} brings it back read-only)"
            )
    finally:
        await store.close()
    return 0


def rotate_secret(data_dir: Path, grace_days: float) -> int:
    from server.net.auth import rotate_secret_file

    try:
        until = rotate_secret_file(data_dir, grace_days * 86400)
    except ValueError as error:
        raise UserError(str(error)) from None
    print(
        f"agon admin: new token secret in {data_dir}; the previous one is accepted until {until} (UTC). "
        "Restart every server process to use it.",
        file=sys.stdout,
    )
    return 0
