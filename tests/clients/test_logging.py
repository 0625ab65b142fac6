"""The client library prints nothing of its own accord: its log lines go where the program's logging sends
them (a script that configures none sees only what it prints itself)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOST = "import logging, clients.python; {setup}logging.getLogger('clients.python.client').warning('lost duel')"


def stderr_of(setup: str) -> str:
    code = LOST.format(setup=setup)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stderr


def test_a_script_without_logging_sees_no_library_lines() -> None:
    assert stderr_of("") == ""


def test_a_script_that_configures_logging_sees_them() -> None:
    assert "lost duel" in stderr_of("logging.basicConfig(); ")
