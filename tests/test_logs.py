"""Log lines keep the time stamps people and collectors read, though each second is formatted only once."""

from __future__ import annotations

import json
import logging
import time

from server.logs import TEXT_FORMAT, JsonFormatter, TextFormatter

# Two records in one second, then the next second, then back to an earlier second (a record made before
# another may be formatted after it), and a second boundary to the millisecond.
MOMENTS = [1_795_000_000.042, 1_795_000_000.999, 1_795_000_001.0, 1_794_999_999.5, 1_795_003_600.007]


def record(created: float) -> logging.LogRecord:
    entry = logging.LogRecord("agon.test", logging.INFO, __file__, 1, "command %s", ("ok",), None)
    entry.created = created
    entry.msecs = (created - int(created)) * 1000
    return entry


def test_text_lines_are_those_of_the_standard_formatter() -> None:
    ours, standard = TextFormatter(), logging.Formatter(TEXT_FORMAT)
    for created in MOMENTS:
        assert ours.format(record(created)) == standard.format(record(created))


def test_json_lines_carry_the_utc_time_to_the_millisecond() -> None:
    formatter = JsonFormatter()
    for created in MOMENTS:
        entry = json.loads(formatter.format(record(created)))
        whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
        assert entry["time"] == f"{whole}.{int((created - int(created)) * 1000):03d}Z"
        assert entry["message"] == "command ok"
