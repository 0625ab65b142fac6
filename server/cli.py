"""`agon` — the command line: serve, export, import, verify, replay, schema."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

DEFAULT_STORE = "sqlite:agon-data/agon.sqlite3"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="agon", description="Agon: event-sourced tabletop-RPG contests")
    commands = parser.add_subparsers(dest="command", required=True)

    serve_parser = commands.add_parser("serve", help="serve contests over WebSocket (/ws, /healthz, /metrics)")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8765)
    serve_parser.add_argument("--store", default=DEFAULT_STORE, help="sqlite:PATH (default) or redis://HOST:PORT/DB")

    export_parser = commands.add_parser("export", help="write a contest's log as JSON lines")
    export_parser.add_argument("contest")
    export_parser.add_argument("--store", default=DEFAULT_STORE)
    export_parser.add_argument("--output", "-o", default="-", help="a file, or - for standard output")

    verify_parser = commands.add_parser("verify", help="check an exported log: hash chain, commitments, dice, fold")
    verify_parser.add_argument("file")

    import_parser = commands.add_parser("import", help="verify an exported log, then store it read-only")
    import_parser.add_argument("file")
    import_parser.add_argument("--store", default=DEFAULT_STORE)
    import_parser.add_argument(
        "--url", default="http://127.0.0.1:8765/", help="the server's address, for the printed auditor link"
    )

    replay_parser = commands.add_parser("replay", help="a readable timeline and the state as a viewer saw it")
    replay_parser.add_argument("source", help="an exported file, or a contest id in the store")
    replay_parser.add_argument("--store", default=DEFAULT_STORE)
    replay_parser.add_argument("--at", type=int, default=None, help="stop at this version")
    replay_parser.add_argument("--as", dest="viewer", default="gm", help="gm | player:SEAT | spectator")

    commands.add_parser("schema", help="print the JSON Schema of every wire type")

    args = parser.parse_args(argv)
    match args.command:
        case "serve":
            from server.net.app import run

            return run(host=args.host, port=args.port, store=args.store)
        case "export":
            from server.audit import export_contest

            return asyncio.run(export_contest(args.store, args.contest, args.output))
        case "verify":
            from server.audit import verify_file

            return verify_file(args.file)
        case "import":
            from server.audit import import_file

            return asyncio.run(import_file(args.file, args.store, args.url))
        case "replay":
            from server.audit import replay

            return asyncio.run(replay(args.source, args.store, args.at, args.viewer))
        case "schema":
            from protocol.schema import schema_json

            sys.stdout.write(schema_json() + "\n")
            return 0
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    raise SystemExit(main())
