"""`agon` — the command line: serve, play, watch, export, import, verify, replay, schema.

A user's mistake (a missing file, a bad port, an unknown seat) gets one line on standard error and a
non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from server.datadir import default_store

USAGE_ERROR = 2


class UserError(Exception):
    """A mistake the user can fix: printed as ``agon <command>: <message>``, exit ``status``."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line (``agon serve: --port: ...``) rather than usage and an error."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: use 1 to 65535 (0 picks a free one)")
    return port


def _version(text: str) -> int:
    try:
        version = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a version number") from None
    if version < 1:
        raise argparse.ArgumentTypeError(f"{version}: versions start at 1 (the contest's creation)")
    return version


def parser() -> argparse.ArgumentParser:
    store_help = (
        "sqlite:PATH, redis://HOST:PORT/DB, redis-cluster://HOST:PORT[,HOST:PORT...] or memory: "
        "(default: agon.sqlite3 in $AGON_DATA)"
    )
    top = _Parser(prog="agon", description="Agon: event-sourced tabletop-RPG contests")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = commands.add_parser("serve", help="serve contests over WebSocket (/ws, /healthz, /metrics)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=8765)
    serve.add_argument("--store", default=None, help=store_help)
    serve.add_argument("--create", action="store_true", help="create the sqlite store if it does not exist yet")

    for name, role in (("play", "a player (or the GM)"), ("watch", "a spectator (or the GM)")):
        client = commands.add_parser(name, help=f"the terminal client, as {role}, from an invitation link")
        client.add_argument("link", help="an invitation link (http://HOST:PORT/#TOKEN) or a bare token")
        client.add_argument("--server", default=None, help="the server's WebSocket URL, when LINK is a bare token")

    export = commands.add_parser("export", help="write a contest's log as JSON lines")
    export.add_argument("contest")
    export.add_argument("--store", default=None, help=store_help)
    export.add_argument("--output", "-o", default="-", help="a file, or - for standard output")

    verify = commands.add_parser("verify", help="check an exported log: hash chain, commitments, dice, fold")
    verify.add_argument("file")

    imported = commands.add_parser("import", help="verify an exported log, then store it read-only")
    imported.add_argument("file")
    imported.add_argument("--store", default=None, help=store_help)
    imported.add_argument("--url", default="http://127.0.0.1:8765/", help="the server's address, for the auditor link")

    replay = commands.add_parser("replay", help="the story of a contest and its state, as a viewer saw it")
    replay.add_argument("source", help="an exported file, or a contest id in the store")
    replay.add_argument("--store", default=None, help=store_help)
    replay.add_argument("--at", type=_version, default=None, help="stop at this version")
    replay.add_argument("--as", dest="viewer", default="gm", help="gm | player:SEAT | spectator")
    shape = replay.add_mutually_exclusive_group()
    shape.add_argument(
        "--json",
        action="store_const",
        const="json",
        dest="format",
        help='one JSON document for machines, {"timeline": [...], "view": {...}} (same as --format json)',
    )
    shape.add_argument("--format", choices=["text", "markdown", "json"], default="text")

    admin = commands.add_parser("admin", help="operate the store: list, archive, rotate the token secret")
    tasks = admin.add_subparsers(dest="task", required=True, parser_class=_Parser)
    listing = tasks.add_parser("list", help="every contest with its ruleset, state, events and bytes")
    listing.add_argument("--store", default=None, help=store_help)
    listing.add_argument("--json", action="store_true", help="one JSON object per contest")
    archiving = tasks.add_parser("archive", help="export, verify, then remove concluded contests")
    archiving.add_argument("contests", nargs="+", metavar="CONTEST")
    archiving.add_argument("--to", required=True, help="the folder the archives go to (CONTEST.jsonl)")
    archiving.add_argument("--store", default=None, help=store_help)
    rotating = tasks.add_parser("rotate-secret", help="a new token secret; the old one accepted for a while")
    rotating.add_argument("--grace-days", type=float, default=30.0, help="how long old tokens stay valid (30)")
    rotating.add_argument(
        "--store", default=None, help="the store `agon serve` uses (its data folder holds the secret)"
    )

    schema = commands.add_parser("schema", help="print the JSON Schema of every wire type")
    schema.add_argument("--asyncapi", action="store_true", help="print the AsyncAPI 3 document instead")
    schema.add_argument("--write", metavar="DIR", help="write schema.json and asyncapi.json into DIR (e.g. docs)")

    bench = commands.add_parser(
        "bench", help="measure Agon against the floor and boardgame.io (starts its own servers)"
    )
    from server.bench.main import add_arguments

    add_arguments(bench)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    name = f"agon {args.command}"
    try:
        return _run(args)
    except UserError as error:
        print(f"{name}: {error}", file=sys.stderr)
        return error.status
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        if os.environ.get("AGON_DEBUG"):
            raise
        print(f"{name}: {type(error).__name__}: {error} (AGON_DEBUG=1 shows where)", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    match args.command:
        case "serve":
            from server.net.app import run

            return run(host=args.host, port=args.port, store=args.store or default_store(), create=args.create)
        case "play" | "watch":
            from clients.python.terminal import run_terminal

            return run_terminal(args.link, server=args.server, watch=args.command == "watch")
        case "export":
            from server.audit import export_contest

            return asyncio.run(export_contest(args.store or default_store(), args.contest, args.output))
        case "verify":
            from server.audit import verify_file

            return verify_file(args.file)
        case "import":
            from server.audit import import_file

            return asyncio.run(import_file(args.file, args.store or default_store(), args.url))
        case "replay":
            from server.audit import replay

            return asyncio.run(replay(args.source, args.store or default_store(), args.at, args.viewer, args.format))
        case "admin":
            from server import admin

            if args.task == "list":
                return asyncio.run(admin.list_contests(args.store or default_store(), args.json))
            if args.task == "archive":
                return asyncio.run(admin.archive(args.store or default_store(), args.contests, args.to))
            from server.net.settings import data_dir_for

            return admin.rotate_secret(data_dir_for(args.store or default_store(), os.environ), args.grace_days)
        case "schema":
            from protocol.schema import GENERATED, asyncapi_json, schema_json

            if args.write:
                folder = Path(args.write)
                if not folder.is_dir():
                    raise UserError(f"--write {args.write}: no such folder")
                for name, generate in GENERATED.items():
                    (folder / name).write_text(generate() + "\n", encoding="utf-8")
                    print(f"wrote {folder / name}")
                return 0
            sys.stdout.write((asyncapi_json() if args.asyncapi else schema_json()) + "\n")
            return 0
        case "bench":
            from server.bench.main import run as bench

            return bench(args)
    return USAGE_ERROR  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    raise SystemExit(main())
