"""Failed accepts for want of descriptors: told at once, then at most once a second with a count; every other
report of the event loop still reaches its previous handler."""

from __future__ import annotations

import asyncio
import errno
import logging
from typing import Any

import pytest

from server.net.accept_limit import install
from server.net.accept_tally import AcceptTally


@pytest.mark.parametrize(
    ("failures", "told"),
    [
        ([0.0], [1]),  # the first failure is told at once
        ([0.0, 0.1, 0.5, 0.99], [1]),  # the rest of the second is counted, not told
        ([0.0, 0.1, 0.5, 1.0], [1, 3]),  # a second later: the failures since the last warning
        ([0.0, 0.2, 0.4, 1.3, 1.5, 2.2, 5.0], [1, 3, 3]),  # 2.2 is within a second of 1.3
    ],
)
def test_a_warning_a_second_at_most_with_the_count_since_the_last(failures: list[float], told: list[int]) -> None:
    tally = AcceptTally(interval=1.0)
    said = [count for now in failures if (count := tally.failed(now)) is not None]
    assert said == told
    assert tally.total == len(failures)
    assert tally.pending == len(failures) - sum(told)


def test_failures_left_untold_are_told_once_the_interval_has_passed() -> None:
    tally = AcceptTally(interval=1.0)
    assert tally.failed(10.0) == 1
    assert tally.failed(10.2) is None and tally.failed(10.3) is None
    assert tally.wait(10.3) == pytest.approx(0.7)
    assert tally.due(10.9) is None
    assert tally.due(11.0) == 2
    assert tally.due(12.0) is None  # nothing pending: nothing to say
    assert tally.wait(11.5) == pytest.approx(0.5)


def _out_of_files(loop: asyncio.AbstractEventLoop) -> None:
    loop.call_exception_handler(
        {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "Too many open files")}
    )


async def test_the_loop_tells_running_out_of_descriptors_once_a_second(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    others: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: others.append(context))
    handler = install(loop)
    handler.tally.interval = 0.2
    try:
        with caplog.at_level(logging.WARNING, logger="server.net.accept_limit"):
            for _ in range(250):
                _out_of_files(loop)
            loop.call_exception_handler({"message": "something else", "exception": ValueError("other")})
            await asyncio.sleep(0.35)  # the untold failures are told when the interval has passed
        warnings = [r.getMessage() for r in caplog.records if r.name == "server.net.accept_limit"]
        assert len(warnings) == 2
        assert "1 accept failed since the last warning, 1 in all" in warnings[0]
        assert "249 accepts failed since the last warning, 250 in all" in warnings[1]
        assert "open files limit" in warnings[0] and not any(r.exc_info for r in caplog.records)
        assert [context["message"] for context in others] == ["something else"]
    finally:
        handler.close()
        loop.set_exception_handler(previous)
