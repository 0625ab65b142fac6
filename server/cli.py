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

from server.datadir import STORE_FILE, default_store, settle, sqlite_path
from server.user_error import USAGE_ERROR, UserError


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
        "(default: $AGON_STORE, or the first line of the file $AGON_STORE_FILE, else agon.sqlite3 in $AGON_DATA)"
    )
    top = _Parser(prog="agon", description="Agon: event-sourced tabletop-RPG contests")
    commands = top.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = commands.add_parser("serve", help="serve contests over WebSocket (/ws, /healthz, /readyz, /metrics)")
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
    imported.add_argument(
        "--create", action="store_true", help="create the sqlite store (and its token secret) if it does not exist yet"
    )

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
    archiving.add_argument("--to", required=True, help="the folder for CONTEST.jsonl (created if missing)")
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
    note = settle(os.environ)
    if note:
        print(f"agon: {note}", file=sys.stderr)
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
        plain = _plain(error, getattr(args, "store", None))
        if plain is None:
            plain = f"{type(error).__name__}: {error} (AGON_DEBUG=1 shows where)"
        print(f"{name}: {plain}", file=sys.stderr)
        return 1


def _plain(error: Exception, store: str | None) -> str | None:
    """What a user can act on, for failures of the world rather than of Agon: a store that cannot be
    reached or is not a store, a file that cannot be read or written."""
    import sqlite3

    from server.net.settings import SettingError
    from server.store import StoreError

    if isinstance(error, SettingError):
        return str(error)
    if isinstance(error, StoreError):
        return f"cannot open the store: {error.message}"
    if isinstance(error, sqlite3.DatabaseError):
        return f"{store or default_store()} is not an Agon store ({error})"
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    return None


def _spec(given: str | None) -> str:
    """The store a command names (``--store``, else ``AGON_STORE`` / ``AGON_STORE_FILE``), else the default one
    (agon.sqlite3 in AGON_DATA)."""
    from server.store_url import store_from_env

    if given == "sqlite:":
        raise UserError("--store sqlite: names no file: use sqlite:PATH", USAGE_ERROR)
    named = given or store_from_env(os.environ)
    if named == "sqlite:":
        raise UserError("AGON_STORE sqlite: names no file: use sqlite:PATH", USAGE_ERROR)
    return named or default_store()


def _store(given: str | None, create: bool | None = None) -> str:
    """The store a command uses, which must exist: a typo never starts a second store with a secret of its
    own. ``create`` (``--create``) makes a missing sqlite file; None for commands that only read a store."""
    spec = _spec(given)
    path = sqlite_path(spec)
    if path is None or path.is_file():
        return spec
    if path.is_dir():
        raise UserError(f"{path} is a folder: name the store file in it, e.g. sqlite:{path / STORE_FILE}")
    if create:
        return spec
    if create is None:
        raise UserError(f"no store at {path} (set AGON_DATA or pass --store)")
    raise UserError(f"no store at {path}: pass --create to start a new one there")


def _secret_for(spec: str, create: bool) -> None:
    """A command that signs tokens uses the server's secret: without --create it never makes a new one."""
    from server.net.auth import SECRET_FILE
    from server.net.settings import data_dir_for

    if create or os.environ.get("AGON_SECRET"):
        return
    folder = data_dir_for(spec, os.environ)
    if not (folder / SECRET_FILE).is_file():
        raise UserError(
            f"no token secret in {folder}: set AGON_SECRET as the server has it, or pass --create to make one"
        )


def _run(args: argparse.Namespace) -> int:
    match args.command:
        case "serve":
            from server.serving import run

            return run(host=args.host, port=args.port, store=_store(args.store, args.create))
        case "play" | "watch":
            from clients.python.terminal import run_terminal

            return run_terminal(args.link, server=args.server, watch=args.command == "watch")
        case "export":
            from server.audit import export_contest

            return asyncio.run(export_contest(_store(args.store), args.contest, args.output))
        case "verify":
            from server.audit import verify_file

            return verify_file(args.file)
        case "import":
            from server.audit import import_file

            store = _store(args.store, args.create)
            _secret_for(store, args.create)
            return asyncio.run(import_file(args.file, store, args.url))
        case "replay":
            from server.audit import replay

            # an exported file needs no store: replay opens it only for a contest id
            return asyncio.run(replay(args.source, _spec(args.store), args.at, args.viewer, args.format))
        case "admin":
            from server import admin

            if args.task == "list":
                return asyncio.run(admin.list_contests(_store(args.store), args.json))
            if args.task == "archive":
                return asyncio.run(admin.archive(_store(args.store), args.contests, args.to))
            from server.net.settings import data_dir_for
            from server.store_url import store_from_env

            # a store named here must exist (its folder holds the secret); AGON_DATA alone may serve Redis
            store = _store(args.store) if args.store or store_from_env(os.environ) else default_store()
            return admin.rotate_secret(data_dir_for(store, os.environ), args.grace_days)
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
