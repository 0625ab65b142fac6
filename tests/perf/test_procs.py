"""The benchmark's child servers never stall on their own log."""

from __future__ import annotations

import sys
import time

from server.bench.procs import Proc, free_port

CHATTY = """
import socket, sys, time
sys.stderr.write("a log line per command\\n" * 20000)  # 460 KB: far more than a pipe holds
sys.stderr.flush()
server = socket.create_server(("127.0.0.1", int(sys.argv[1])))
time.sleep(60)
"""


def test_a_server_that_logs_much_still_comes_up_and_runs() -> None:
    port = free_port()
    started = time.monotonic()
    proc = Proc([sys.executable, "-c", CHATTY, str(port)], port, "a chatty server")
    try:
        assert time.monotonic() - started < 20  # a pipe left unread would have kept it in its write
        assert proc.process.poll() is None
    finally:
        proc.stop()
