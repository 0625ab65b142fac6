"""Log lines for people (text, the default) or for log collectors (``AGON_LOG_FORMAT=json``: one JSON
object per line with ``time``, ``level``, ``logger``, ``message`` and, where a line is about one,
``contest``, ``command`` (the command's id), ``kind`` (the command's type), ``outcome``, ``version``
and ``code``).

Nothing logged carries a token or a command's payload (sealed intents included): lines name commands by
id and type only, and messages are written by the server, never copied from a frame.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping

FIELDS = ("contest", "command", "kind", "outcome", "version", "code")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        entry: dict[str, object] = {
            "time": f"{seconds}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure(env: Mapping[str, str]) -> None:
    """Log to standard error at INFO, as text or (``AGON_LOG_FORMAT=json``) as JSON lines."""
    kind = env.get("AGON_LOG_FORMAT", "text").strip().lower() or "text"
    if kind not in ("text", "json"):
        raise ValueError(f"AGON_LOG_FORMAT: {kind!r} is neither text nor json")
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if kind == "json" else logging.Formatter(TEXT_FORMAT))
    # Neither format shows where a line was logged from, nor the thread or process: skip finding them (the
    # logging HOWTO's "Optimization"), which costs more than the rest of a line.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    logging.getLogger("websockets").setLevel(logging.WARNING)
