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
from collections.abc import Callable, Mapping

FIELDS = ("contest", "command", "kind", "outcome", "version", "code")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class Second:
    """A time stamp's whole second, formatted once a second: ``time.strftime`` is about a third of the cost of
    formatting a text line, and a busy server logs a line per command (and stamps every event)."""

    def __init__(self, pattern: str, converter: Callable[[float], time.struct_time]) -> None:
        self._pattern = pattern
        self._converter = converter
        self._held = (-1, "")  # the second last formatted, and its text: replaced whole, so threads may share it

    def __call__(self, created: float) -> str:
        second = int(created)
        held = self._held  # read once: another thread may replace it
        if held[0] != second:
            held = self._held = (second, time.strftime(self._pattern, self._converter(second)))
        return held[1]


class TextFormatter(logging.Formatter):
    """``TEXT_FORMAT``, its time as ``logging.Formatter`` writes it (local time, ``2026-11-23 05:56:01,042``)."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)
        self._second = Second(self.default_time_format, time.localtime)

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return f"{self._second(record.created)},{int(record.msecs):03d}"


class JsonFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__()
        self._second = Second("%Y-%m-%dT%H:%M:%S", time.gmtime)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": f"{self._second(record.created)}.{int(record.msecs):03d}Z",
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
    handler.setFormatter(JsonFormatter() if kind == "json" else TextFormatter())
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
